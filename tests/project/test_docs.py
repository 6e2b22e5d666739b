"""The documents the code cites live in the repository, and every citation points at something
that is there: a docs/*.md file, a section of docs/physics.md or docs/agents.md, a contract of
docs/design.md, a clause id (H-..., C-..., O-...) listed in docs/rules.md. No citation points
outside the repository.

Pure Python over the source text, no JAX. The checker's own planted bad citations are below, so
this file is left out of the scan.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("physics", "rules", "aiming", "billiards_env", "agents", "experiments", "tests")

CLAUSE = re.compile(r"\b[HCO]-\d+(?:\.\d+)*")
DOCUMENT = re.compile(r"\bdocs/[\w/-]+\.md\b")
# A spec name without the docs/ prefix, or a path into a shared folder outside the repository.
OUTSIDE = re.compile(r"(?<![\w.-])(?:PHYSICS|RULES|DESIGN|STYLE)\.md\b|\.\./shared\b|\bshared/(?:spec|seeds)\b")
NUMBERS = r"(\d+(?:\s*(?:,|and|to|-)\s*\d+)*)"
PHYSICS_SECTION = re.compile(r"docs/physics\.md,?\s+(?:sections?\s+)?" + NUMBERS)
AGENTS_SECTION = re.compile(r"docs/agents\.md,?\s+(?:sections?\s+)?" + NUMBERS)
DESIGN_CONTRACT = re.compile(r"docs/design\.md,?\s+contracts?\s+" + NUMBERS)

# How the documents mark what may be cited.
SECTION_HEADING = re.compile(r"^## (\d+)\. ", re.M)
CONTRACT_HEADING = re.compile(r"^## Contract (\d+)\b", re.M)
CLAUSE_ENTRY = re.compile(r"^(?:#{2,4} |- \*\*)([HCO]-\d+(?:\.\d+)*)\b", re.M)


def sources() -> dict[str, str]:
    """Path (relative to the repository) -> text, for every file whose citations are checked:
    the packages' Python files, README.md and the documents themselves."""
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    files += [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    this = Path(__file__).resolve()
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files if p.resolve() != this}


def numbers(listed: str) -> set[int]:
    """'1, 5' / '2 and 3' / '4 to 6' -> the numbers named (ranges included)."""
    found: set[int] = set()
    parts = re.split(r"\s*(?:,|and)\s*", listed)
    for part in parts:
        ends = [int(x) for x in re.split(r"\s*(?:to|-)\s*", part)]
        found.update(range(ends[0], ends[-1] + 1))
    return found


def outside_citations(text: str) -> list[str]:
    return [m.group(0) for m in OUTSIDE.finditer(text)]


def missing_documents(text: str, root: Path = ROOT) -> set[str]:
    return {m.group(0) for m in DOCUMENT.finditer(text) if not (root / m.group(0)).is_file()}


def unknown_numbers(text: str, pattern: re.Pattern, known: set[int]) -> set[int]:
    cited = set()
    for m in pattern.finditer(text):
        cited |= numbers(m.group(1))
    return cited - known


def unknown_clauses(text: str, known: set[str]) -> set[str]:
    return set(CLAUSE.findall(text)) - known


def read_doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def texts():
    return sources()


@pytest.fixture(scope="module")
def clauses():
    return set(CLAUSE_ENTRY.findall(read_doc("rules.md")))


@pytest.fixture(scope="module")
def sections():
    return {int(n) for n in SECTION_HEADING.findall(read_doc("physics.md"))}


@pytest.fixture(scope="module")
def agent_sections():
    return {int(n) for n in SECTION_HEADING.findall(read_doc("agents.md"))}


@pytest.fixture(scope="module")
def contracts():
    return {int(n) for n in CONTRACT_HEADING.findall(read_doc("design.md"))}


def test_the_documents_have_what_the_checks_read(clauses, sections, agent_sections, contracts, texts):
    # Guards against a checker that passes because it parsed nothing.
    assert sections == set(range(1, 11))
    assert agent_sections == set(range(1, 8))
    assert contracts == {1, 2, 3}
    assert {"H-1.1", "H-9.10", "C-1", "C-9.2", "C-13.4", "C-14.2", "O-1", "O-10"} <= clauses
    assert len(clauses) > 100
    cited = set().union(*(CLAUSE.findall(t) for path, t in texts.items() if not path.startswith("docs")))
    assert len(cited) > 80


def test_every_document_cited_exists(texts):
    bad = {path: sorted(missing_documents(text)) for path, text in texts.items() if missing_documents(text)}
    assert not bad


def test_every_clause_id_cited_is_an_entry_of_docs_rules_md(texts, clauses):
    bad = {path: sorted(unknown_clauses(text, clauses)) for path, text in texts.items()
           if unknown_clauses(text, clauses)}
    assert not bad


@pytest.mark.parametrize("pattern, known", [
    (PHYSICS_SECTION, "sections"), (AGENTS_SECTION, "agent_sections"), (DESIGN_CONTRACT, "contracts"),
], ids=["physics section", "agents section", "design contract"])
def test_every_numbered_section_or_contract_cited_exists(texts, request, pattern, known):
    numbers_known = request.getfixturevalue(known)
    bad = {path: sorted(unknown_numbers(text, pattern, numbers_known)) for path, text in texts.items()
           if unknown_numbers(text, pattern, numbers_known)}
    assert not bad


def test_no_citation_points_outside_the_repository(texts):
    bad = {path: outside_citations(text) for path, text in texts.items() if outside_citations(text)}
    assert not bad


# -- the checker on planted citations ---------------------------------------------------------


@pytest.mark.parametrize("text, found", [
    ("# rule C-13.2 (PHYSICS.md section 6)", ["PHYSICS.md"]),
    ('"""As RULES.md H-6.4 says."""', ["RULES.md"]),
    ("see DESIGN.md, contract 1 and STYLE.md", ["DESIGN.md", "STYLE.md"]),
    ("read ../shared/spec/PHYSICS.md", ["../shared", "PHYSICS.md"]),
    ("from shared/seeds/000.txt", ["shared/seeds"]),
    ("docs/physics.md section 6; docs/rules.md H-6.4; docs/design.md contract 3; README.md", []),
])
def test_checker_finds_citations_outside_the_repository(text, found):
    assert outside_citations(text) == found


def test_checker_finds_a_missing_document(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "physics.md").write_text("# Physics\n")
    text = "see docs/physics.md section 2 and docs/collisions.md"
    assert missing_documents(text, tmp_path) == {"docs/collisions.md"}
    assert missing_documents("see docs/physics.md", tmp_path) == set()


def test_checker_finds_unknown_sections_and_contracts(sections, agent_sections, contracts):
    assert unknown_numbers("docs/agents.md section 8", AGENTS_SECTION, agent_sections) == {8}
    assert unknown_numbers("docs/agents.md sections 3 and 4", AGENTS_SECTION, agent_sections) == set()
    assert unknown_numbers("(docs/physics.md section 12)", PHYSICS_SECTION, sections) == {12}
    assert unknown_numbers("docs/physics.md sections 4 and 11", PHYSICS_SECTION, sections) == {11}
    assert unknown_numbers("docs/physics.md\nsections 9 to 12", PHYSICS_SECTION, sections) == {11, 12}
    assert unknown_numbers("docs/physics.md 0", PHYSICS_SECTION, sections) == {0}
    assert unknown_numbers("docs/physics.md sections 1, 5", PHYSICS_SECTION, sections) == set()
    assert unknown_numbers("docs/design.md contract 4", DESIGN_CONTRACT, contracts) == {4}
    assert unknown_numbers("docs/design.md, contract 1", DESIGN_CONTRACT, contracts) == set()


def test_checker_finds_unknown_clause_ids(clauses):
    assert unknown_clauses("# rules H-9.2 to H-9.4, C-12.3 c, O-7", clauses) == set()
    assert unknown_clauses("# rule H-9.12 and C-15.1; O-11", clauses) == {"H-9.12", "C-15.1", "O-11"}


def test_clause_entries_are_read_from_headings_and_list_entries_only():
    text = "### H-1 Equipment\n- **H-1.1** The table.\n  Mentions H-1.2 in passing.\n#### C-5 Frozen\n"
    assert set(CLAUSE_ENTRY.findall(text)) == {"H-1", "H-1.1", "C-5"}
