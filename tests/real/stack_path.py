"""The way a walk takes from one stack to another, for the labs' expected transitions.

An exception stack's walk reaches the task stack directly, or through the IRQ stack when the
exception hit while the CPU ran there: an NMI on the IRQ stack prints <NMI>...</NMI>,
<IRQ>...</IRQ>, then the task's frames (5.10's panic_nmi, whose NMI landed in an interrupt's
return path). Both ways are the kernel's own; the labs expect one or the other by chance.
"""
import re

_TEXT = re.compile(r'^\s*--- (\S+) -> (\S+): ', re.M)


def transitions_in_text(bt):
    """The (from, to) pairs of a `btaudit vmcore ... bt` text, in order."""
    return _TEXT.findall(bt or '')


def goes(transitions, frm, to):
    """Whether consecutive transitions lead from stack `frm` to stack `to` (through 'irq' at most)."""
    pairs = list(transitions)
    for i, (a, b) in enumerate(pairs):
        if a != frm:
            continue
        if b == to:
            return True
        if b == 'irq' and i + 1 < len(pairs) and pairs[i + 1] == ('irq', to):
            return True
    return False
