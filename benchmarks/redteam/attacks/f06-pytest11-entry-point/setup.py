from setuptools import setup
setup(name="$PKG", version="3.0.2", packages=["$PKG"],
      entry_points={"pytest11": ["gk_evil = $PKG._gk_plugin"]})
