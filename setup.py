"""Build hook: ship the skill folders and the demo's examples inside the wheel.

`skills/` and `examples/` stay where they are in the repository (one copy); a plain wheel
gets them as `gavelkit/_bundle/skills/` and `gavelkit/_bundle/examples/`, so `gavel demo`
and `gavel skills install` work without a checkout. Which files go in is MANIFEST.in's
choice (the sdist and the wheel hold the same files); an editable install needs no copy,
since the checkout is right there.
"""

from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("skills/", "examples/")


class build_py_with_bundle(build_py):  # noqa: N801 (setuptools command naming)
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        self.run_command("egg_info")
        files = self.get_finalized_command("egg_info").filelist.files
        dest = os.path.join(self.build_lib, "gavelkit", "_bundle")
        for rel in sorted(f.replace(os.sep, "/") for f in files):
            if not rel.startswith(BUNDLED) or not os.path.isfile(rel):
                continue
            target = os.path.join(dest, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(rel, target)


setup(cmdclass={"build_py": build_py_with_bundle})
