#!/usr/bin/env python3
"""Gives a synthetic kernel the call-padding symbols of a 6.2+ kernel.

  add_pfx_symbols.py KERNEL_ELF

With CONFIG_CALL_PADDING (x86, 6.2+: the call-depth-tracking and FineIBT mitigations),
every function is preceded by 16 bytes of padding that objtool (--prefix=16) names
__pfx_<function>, a local function symbol kallsyms keeps: the kernel prints a pointer to
a function's first byte as "__pfx_<function>+0x10/0x10", and every function's kallsyms
size runs to the next function's padding. The synthetic kernels of eras 4 and 5 are
compiled with -fpatchable-function-entry=16,16 (16 NOPs before each C function's
entry); this script adds the __pfx_ symbols over those NOPs with objcopy, as objtool does.
Functions without the 16 NOPs before them (the asm entry stubs) get none."""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthdump.kernel_image import KernelImage  # noqa: E402

PAD = 16


def main():
    path = sys.argv[1]
    image = KernelImage(path)
    text = image.section(".text")
    taken = {value for value, _size in image.symbols.values()}
    args = []
    for name, (value, size) in sorted(image.symbols.items(), key=lambda kv: kv[1][0]):
        if not size or name.startswith("__pfx_") or not text["addr"] + PAD <= value < text["addr"] + text["size"]:
            continue
        if value - PAD in taken or image.read(value - PAD, PAD) != b"\x90" * PAD:
            continue
        args += ["--add-symbol", f"__pfx_{name}=.text:{value - PAD - text['addr']:#x},local,function"]
    if not args:
        sys.exit(f"{path}: no function has {PAD} bytes of NOP padding before it (built without "
                 "-fpatchable-function-entry=16,16?)")
    subprocess.run(["objcopy", *args, path], check=True)
    print(f"{path}: {len(args) // 2} __pfx_ symbols")


if __name__ == "__main__":
    main()
