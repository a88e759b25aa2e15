# The folders here are fixture task packets; their oracle/test_*.py files are data
# read by the gates (AST only), never tests of this project.
collect_ignore_glob = ["*"]
