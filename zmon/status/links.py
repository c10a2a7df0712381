"""Where a site publishes zmon's runbook and dashboards: the links notifications carry.

Each alert links to ``<runbook_url>#<alert name in lower case>`` and, where a Grafana serves
the dashboards of grafana/, to its dashboard at ``<grafana_url>/d/<uid>/<uid>?var-...``.
Only a site knows those addresses, so they are settings: ``zmon rules --runbook-url URL
--grafana-url URL`` (or ``python -m alert_rules.generate`` with the same options) renders the
rules for a site. Without them the rules link the runbook the .deb installs and no dashboard:
nothing points at a host that does not exist.
"""

from __future__ import annotations

import argparse
import urllib.parse
from dataclasses import dataclass

# The runbook as the .deb installs it (packaging/debian/zmon.docs; kept uncompressed).
INSTALLED_RUNBOOK = "file:///usr/share/doc/zmon/RUNBOOK.md"


def check_url(option: str, url: str) -> str:
    """``url`` if it is an absolute http(s) or file URL without a fragment; else ValueError."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https", "file") or (
        parts.scheme != "file" and not parts.netloc
    ):
        raise ValueError(f"{option}: {url!r} is not an absolute http(s) or file URL")
    if parts.fragment or url.endswith("#"):
        raise ValueError(f"{option}: {url!r} has a fragment; each alert adds its own")
    return url


@dataclass(frozen=True)
class SiteLinks:
    """The runbook's address ("" for no runbook link) and Grafana's ("" for no dashboard
    link)."""

    runbook_url: str = INSTALLED_RUNBOOK
    grafana_url: str = ""

    def __post_init__(self) -> None:
        if self.runbook_url:
            check_url("runbook URL", self.runbook_url)
        if self.grafana_url:
            check_url("Grafana URL", self.grafana_url)

    def runbook(self, alert: str) -> str | None:
        """The runbook section of ``alert``; None without a runbook address."""
        return f"{self.runbook_url}#{alert.lower()}" if self.runbook_url else None

    def dashboard(self, uid: str, query: str) -> str | None:
        """The dashboard ``uid`` with the URL ``query``; None without a Grafana address."""
        if not self.grafana_url:
            return None
        return f"{self.grafana_url.rstrip('/')}/d/{uid}/{uid}?{query}"


DEFAULT_LINKS = SiteLinks()


def add_site_options(p: argparse.ArgumentParser) -> None:
    """The options that render the rules for a site (``zmon rules``, alert_rules.generate)."""
    p.add_argument(
        "--runbook-url",
        metavar="URL",
        default=INSTALLED_RUNBOOK,
        help="where the site publishes RUNBOOK.md; each alert links <URL>#<alert> "
        f"('' for no link; default {INSTALLED_RUNBOOK}, the runbook the .deb installs)",
    )
    p.add_argument(
        "--grafana-url",
        metavar="URL",
        default="",
        help="the Grafana that serves the dashboards of grafana/; each alert links its "
        "dashboard (default: no dashboard link)",
    )


def site_of(args: argparse.Namespace) -> SiteLinks:
    """The links ``add_site_options`` parsed; ValueError for a URL that cannot be one."""
    return SiteLinks(args.runbook_url, args.grafana_url)
