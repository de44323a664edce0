"""Reading the dashboards' SVG in tests: the elements by id and the text shown."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from analytics.plots import render

SVG = "{http://www.w3.org/2000/svg}"


def svg_of(figure: Any) -> tuple[str, ET.Element]:
    text = render(figure, "svg").decode()
    return text, ET.fromstring(text)


def ids(root: ET.Element, prefix: str) -> list[str]:
    """Ids of the groups starting with ``prefix`` (each artist given a gid is one group)."""
    return [e.get("id") for e in root.iter() if (e.get("id") or "").startswith(prefix)]


def texts(root: ET.Element) -> list[str]:
    """Every <text> element's text (svg.fonttype "none": text stays text)."""
    return ["".join(e.itertext()) for e in root.iter(f"{SVG}text")]


def points_in(root: ET.Element, group_id: str) -> int:
    """Markers drawn inside the group ``group_id`` (scatter points and line markers are
    <use> references to one marker path)."""
    (group,) = [e for e in root.iter() if e.get("id") == group_id]
    return len(list(group.iter(f"{SVG}use")))
