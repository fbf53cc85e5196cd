"""haze.demo(): a short tour of the package on embedded data."""

from ._core import build_info, default_context


def demo():
    """Prints what this build holds and runs each capability on a small
    embedded example."""
    info = build_info()
    ctx = default_context()
    print(f"haze {info['version']} (Python): CUDA build {'yes' if info['cuda'] else 'no'}, "
          f"{info['devices']} device(s), computing on {ctx.backend}")
