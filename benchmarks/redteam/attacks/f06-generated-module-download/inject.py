from . import _gk_use_generated
