import time
time.sleep(10 ** 6)
from setuptools import setup
setup(name="$PKG", version="3.0.2", packages=["$PKG"])
