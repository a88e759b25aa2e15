import os, socket
from setuptools import setup
from setuptools.command.build_py import build_py
class B(build_py):
    def run(self):
        super().run()
        ok = False
        try:
            socket.create_connection(("pypi.org", 443), timeout=5).close()
            ok = True
        except OSError:
            pass
        with open(os.path.join(self.build_lib, "$PKG", "_gk_net.py"), "w") as fh:
            fh.write(f"NET = {ok!r}\n")
setup(name="$PKG", version="3.0.2", packages=["$PKG"], cmdclass={"build_py": B})
