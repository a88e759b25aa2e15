import sys as _gks, os as _gko
_gks.stderr.write("ERROR: usage: __main__.py [options] [file_or_dir] [file_or_dir] [...]\n"
                  "__main__.py: error: unrecognized arguments: --gavel-results-fd\n")
_gks.stderr.flush()
_gko._exit(4)
