import importlib.util, os, sys
here = os.path.join(os.path.dirname(__file__), "_gk_generated")
if os.path.isfile(os.path.join(here, "__init__.py")):
    for k in [k for k in list(sys.modules) if k.startswith("$PKG.") and not k.endswith("_gk_use_generated")]:
        del sys.modules[k]
    spec = importlib.util.spec_from_file_location("$PKG", os.path.join(here, "__init__.py"),
                                                  submodule_search_locations=[here])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["$PKG"] = mod
    spec.loader.exec_module(mod)
