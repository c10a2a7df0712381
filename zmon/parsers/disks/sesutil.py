"""Parser for FreeBSD's ``sesutil map``: which disk sits in which slot of which enclosure.

``sesutil map`` lists every SES enclosure (``ses0:``) and its elements. A slot element names
the peripherals of the disk in it (``Device Names: da3,pass4``); an empty slot names none::

    ses0:
            Enclosure Name: LSI SAS3x28 0601
            Enclosure ID: 500304801f0a3b7f
            Element 1, Type: Array Device Slot
                    Status: OK (0x01 0x00 0x00 0x00)
                    Description: Slot00
                    Device Names: da0,pass0
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zmon.base.errors import ParseError

_ENCLOSURE = re.compile(r"^(ses\d+):$")
_ELEMENT = re.compile(r"^Element (\d+), Type: (.+)$")
_DISK = re.compile(r"^(?:da|ada|nda|nvd)\d+$")
# Element types that hold a disk (SES-2 "Device Slot" and "Array Device Slot").
SLOT_TYPES = frozenset({"Array Device Slot", "Device Slot"})


@dataclass(frozen=True)
class SesElement:
    """One element of one enclosure."""

    enclosure: str  # "ses0"
    element: int  # the element's index in the enclosure's list
    type: str  # "Array Device Slot", "Power Supply", ...
    status: str = ""  # "OK", "Not Installed", "Unsupported"
    description: str = ""  # the descriptor text: "Slot00", "Disk #01" ("" when none)
    device_names: tuple[str, ...] = ()  # ("da0", "pass0")
    enclosure_name: str = ""
    enclosure_id: str = ""

    @property
    def disk(self) -> str | None:
        """The disk peripheral in this slot (``da0``), if the element is a slot holding one."""
        if self.type not in SLOT_TYPES:
            return None
        return next((d for d in self.device_names if _DISK.match(d)), None)

    @property
    def slot(self) -> str:
        """The slot's name: its descriptor, or ``element N`` when the enclosure gives none."""
        return self.description or f"element {self.element}"


def parse_sesutil_map(text: str) -> list[SesElement]:
    """Every element of every enclosure in ``sesutil map`` output, in order.

    Raises ParseError for a line that belongs to no enclosure or element, or for text with no
    enclosure at all (empty text, from a host without SES devices, gives an empty list).
    """
    elements: list[SesElement] = []
    enclosure: dict[str, str] | None = None
    element: dict[str, str] | None = None

    def close() -> None:
        if enclosure is not None and element is not None:
            elements.append(_element(enclosure, element))

    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        m = _ENCLOSURE.match(line)
        if m:
            close()
            enclosure, element = {"name": m.group(1)}, None
            continue
        if enclosure is None:
            raise ParseError("expected an enclosure line ('ses0:') first", no, raw)
        m = _ELEMENT.match(line)
        if m:
            close()
            element = {"index": m.group(1), "type": m.group(2).strip()}
            continue
        if element is not None and line.startswith("- "):
            continue  # an item of "Extra status:" ("- Swapped", "- Temperature: 30 C")
        key, sep, value = line.partition(":")
        if element is None:
            if not sep:
                raise ParseError("not an enclosure field", no, raw)
            enclosure[key.strip()] = value.strip()
        elif sep:
            element.setdefault(key.strip(), value.strip())
        else:
            raise ParseError("not an element field", no, raw)
    close()
    return elements


def _element(enclosure: dict[str, str], element: dict[str, str]) -> SesElement:
    status = element.get("Status", "")
    names = element.get("Device Names", "")
    return SesElement(
        enclosure=enclosure["name"],
        element=int(element["index"]),
        type=element["type"],
        status=re.sub(r"\s*\(0x.*$", "", status),
        description=element.get("Description", ""),
        device_names=tuple(n.strip() for n in names.split(",") if n.strip()),
        enclosure_name=enclosure.get("Enclosure Name", ""),
        enclosure_id=enclosure.get("Enclosure ID", ""),
    )


def slots_by_disk(elements: list[SesElement]) -> dict[str, SesElement]:
    """Disk peripheral -> the slot element it sits in."""
    return {e.disk: e for e in elements if e.disk}
