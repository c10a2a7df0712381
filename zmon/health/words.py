"""The words of alert notifications: template fragments naming a pool, a vdev, a disk and
where it sits, and exact counts looked up when an alert fires (Prometheus templates)."""

from __future__ import annotations

POOL = "pool {{ $labels.pool }} on {{ $labels.instance }}"
# The disk behind a vdev, looked up when the alert is evaluated (an annotation, not a label: it
# changes when the disk is replaced, and the alert must not).
VDEV_DISK = (
    '{{ with printf "zmon:vdev_device:info{instance=%q,pool=%q,vdev=%q}" $labels.instance '
    "$labels.pool $labels.vdev | query }}{{ with . | first }} (disk {{ .Labels.device }}"
    '{{ with printf "zmon_disk_info{instance=%q,device=%q}" $labels.instance .Labels.device '
    '| query }}{{ with . | first | label "serial" }}, serial {{ . }}{{ end }}{{ end }}'
    '{{ with printf "zmon_disk_location_info{instance=%q,device=%q}" $labels.instance '
    ".Labels.device | query }}{{ with . | first }}{{ $l := .Labels }}{{ with $l.slot }}, "
    "enclosure {{ $l.enclosure }} slot {{ . }}{{ end }}{{ end }}{{ end }})"
    "{{ end }}{{ end }}"
)
VDEV = (
    f"vdev {{{{ $labels.vdev }}}}{VDEV_DISK} of pool {{{{ $labels.pool }}}} on "
    "{{ $labels.instance }}"
)
DISK = (
    "disk {{ $labels.device }} on {{ $labels.instance }}"
    '{{ with printf "zmon_disk_info{instance=%q,device=%q}" $labels.instance $labels.device '
    '| query }}{{ with . | first | label "serial" }} (serial {{ . }}){{ end }}{{ end }}'
    "{{ with $labels.pool }} (pool {{ . }}"
    '{{ with printf "zmon:vdev_device:info{instance=%q,device=%q}" $labels.instance '
    "$labels.device | query }}{{ with . | first }}, vdev {{ .Labels.vdev }}{{ end }}{{ end }}"
    "){{ end }}"
)
DISK_ = "D" + DISK[1:]  # at the start of a sentence
# The disk's SAS link, looked up when the alert fires: "; its SAS link is PHY phy-0:0:1 of
# expander-0:0 (enclosure 0:0:12:0 slot Slot01)" (nothing for a disk no HBA or expander PHY
# links). An annotation: the PHY and slot change when the disk is moved.
SAS_LINK = (
    '{{ with printf "zmon_sas_phy_info{instance=%q,device=%q}" $labels.instance $labels.device '
    "| query }}{{ with . | first }}{{ $l := .Labels }}; its SAS link is PHY {{ $l.phy }} of "
    "{{ $l.parent }}{{ with $l.slot }} (enclosure {{ $l.enclosure }} slot {{ . }}){{ end }}"
    "{{ end }}{{ end }}"
)


def disk_location(device: str) -> str:
    """Where the disk named by the template expression ``device`` is, looked up in
    ``zmon_disk_location_info`` when the alert is evaluated: a parenthesis with its by-id
    path, WWN, enclosure slot and the command that lights the slot's LED, each where the host
    has them; nothing when zmon serves no location for the disk. It goes right before a
    description's final period. (An annotation, never a label: a replaced disk has another
    place, and the alert must not fire again for it.)"""
    return (
        f'{{{{ with printf "zmon_disk_location_info{{instance=%q,device=%q}}" $labels.instance '
        f"{device} | query }}}}{{{{ with . | first }}}}{{{{ $l := .Labels }}}} (disk at "
        "{{ with $l.by_id }}/dev/disk/by-id/{{ . }}{{ else }}/dev/{{ $l.device }}{{ end }}"
        "{{ with $l.wwn }}, WWN {{ . }}{{ end }}"
        "{{ with $l.slot }}, enclosure {{ $l.enclosure }} slot {{ . }}{{ end }}"
        "{{ with $l.locate }}; find it with {{ . }}{{ end }})"
        "{{ end }}{{ end }}"
    )


# Goes before a disk alert description's final period: "Replace it (disk at
# /dev/disk/by-id/scsi-SSEAGATE_ST8000NM0075_ZA1ABC02, WWN 0x5000c500a1b2c302, enclosure
# 0:0:12:0 slot Slot01; find it with ledctl locate=/dev/sdb)."
DISK_LOCATION = disk_location("$labels.device")


def counted_since(
    selector: str, window: object, by: str, one: str, many: str, none: str = ""
) -> str:
    """How many the counters ``selector`` rose by in the last ``window``, exactly (their
    difference between now and ``window`` ago, summed over the series), looked up when the
    alert fires: "1 new checksum error", "12 new checksum errors", never increase()'s
    extrapolated fraction. Where a counter was reset meanwhile (zpool clear) or is younger
    than the window, it is how far the counter rose above its lowest value in the window:
    "at least 3 new checksum errors"; where even that is 0, ``none`` (default "new checksum
    errors", for a counter the alert's condition says rose).
    ``by`` is the label matchers of the alert's identity as a printf format, a ``|``, and its
    arguments (``instance=%q,pool=%q|$labels.instance $labels.pool``); ``one`` and ``many``
    are the noun."""
    matchers, args = by.split("|")
    inner = selector[:-1] + "," if selector.endswith("}") else selector + "{"
    series = f"{inner}{matchers}}}".replace('"', '\\"')
    query = f"sum({series} - {series} offset {window}) >= 0"
    # a counter younger than the window, or reset in it: how far it rose above its lowest
    # value in the window, a lower bound ("at least 3 new checksum errors")
    bound = f"sum({series} - min_over_time({series}[{window}])) > 0"

    def number(q: str, prefix: str, otherwise: str) -> str:
        return (
            f'{{{{ with printf "{q}" {args} {args} | query }}}}{{{{ with . | first | value }}}}'
            f'{prefix}{{{{ printf "%.0f" . }}}} new {{{{ if eq . 1.0 }}}}{one}{{{{ else }}}}'
            f"{many}{{{{ end }}}}{{{{ end }}}}{{{{ else }}}}{otherwise}{{{{ end }}}}"
        )

    return number(query, "", number(bound, "at least ", none or f"new {many}"))


def looked_up(query: str, by: str, shown: str) -> str:
    """A template that runs ``query`` (``{}`` where the alert's matchers go, ``by`` as in
    ``counted_since``) when the alert fires and shows its value through ``shown`` (a template
    pipeline stage such as ``humanizePercentage``); nothing when it has no value."""
    matchers, args = by.split("|")
    q = query.replace("{}", "{" + matchers + "}").replace('"', '\\"')
    return (
        f'{{{{ with printf "{q}" {args} | query }}}}{{{{ with . | first | value }}}}'
        f"{shown}{{{{ end }}}}{{{{ end }}}}"
    )
