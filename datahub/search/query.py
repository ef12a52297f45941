"""What a search's ``q`` asks for, read once and then written in each database's own
syntax (datahub.search.backends).

``q`` is web-search syntax: words (all must match, in any order), ``"a phrase"``,
``-word`` or ``-"a phrase"`` (must not match), and ``or`` between two items (either
matches). The last word also matches as a prefix, so that results follow typing. Words are
split as the full-text indexes split text (letters and digits; ``order_id`` is the phrase
``order id``); common English words are dropped outside phrases, as PostgreSQL's English
configuration does. Nothing a client sends is an error here: what cannot be read as a
search is left out, and the database only ever sees letters, digits and our operators.
"""

import re
import unicodedata
from dataclasses import dataclass, field

MAX_QUERY_CHARS = 1000  # the longest ``q`` the API takes (a 422 past it)
MAX_ITEMS = 32  # words, phrases and exclusions past this are ignored
MAX_PHRASE_WORDS = 8
WORD = re.compile(r"[^\W_]+")
ITEM = re.compile(r'(-?)"([^"]*)"?|(\S+)')

# PostgreSQL's English stop words (a subset that covers what people type), so that SQLite
# and PostgreSQL agree on what a word-only query asks for.
STOP_WORDS = frozenset(
    "a an and are as at be but by for from has have in into is it its of on or that the "
    "their then there these they this to was were will with".split()
)


@dataclass(frozen=True)
class Term:
    """One item of a query: a word (``words`` of one) or a phrase; ``prefix``: its last
    word also matches longer words."""

    words: tuple
    prefix: bool = False


@dataclass
class Query:
    """``groups``: each must match, by at least one of its terms; ``excluded``: none may."""

    groups: list = field(default_factory=list)
    excluded: list = field(default_factory=list)

    def words(self):
        """Every word the results match on (for highlighting), with whether it is a prefix."""
        for group in self.groups:
            for term in group:
                for index, word in enumerate(term.words):
                    yield word, term.prefix and index == len(term.words) - 1


# Letters without a decomposition that the indexes fold all the same (migration 0018).
LETTERS = str.maketrans({"ø": "o", "æ": "ae", "đ": "d", "ł": "l"})


def fold(text):
    """Lowercase, without accents: how words are compared."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(LETTERS))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words_of(text):
    return [fold(word) for word in WORD.findall(text)]


def parse(q):
    """The :class:`Query` ``q`` asks for (empty when it asks for nothing)."""
    query, pending_or, items = Query(), False, 0
    matches = list(ITEM.finditer(q.replace("\x00", " ")))
    last_plain = _last_plain_word(q, matches)
    for match in matches:
        if items >= MAX_ITEMS:
            break
        negated, phrase, bare = match.group(1), match.group(2), match.group(3)
        if bare is not None and bare.lower() == "or" and query.groups:
            pending_or = True
            continue
        if bare is not None and bare.startswith("-") and len(bare) > 1:
            negated, bare = "-", bare[1:]
        text = phrase if phrase is not None else bare
        words = words_of(text)[:MAX_PHRASE_WORDS]
        if phrase is None and len(words) == 1 and words[0] in STOP_WORDS and not negated:
            continue
        if not words:
            continue
        items += 1
        term = Term(tuple(words), prefix=match is last_plain and not negated)
        if negated:
            query.excluded.append(term)
        elif pending_or:
            query.groups[-1].append(term)
        else:
            query.groups.append([term])
        pending_or = False
    return query


def _last_plain_word(q, matches):
    """The match of the last item when it is an unquoted word that typing may still
    lengthen (no space after it)."""
    if not matches or q.endswith((" ", "\t", "\n")):
        return None
    last = matches[-1]
    return last if last.group(3) is not None and not last.group(3).startswith("-") else None


def fts5(query):
    """``query`` as an SQLite FTS5 MATCH expression, and the expression of its exclusions
    (either None when there is none)."""
    positive = " AND ".join(
        "(" + " OR ".join(_fts5_term(term) for term in group) + ")" for group in query.groups
    )
    negative = " OR ".join(_fts5_term(term) for term in query.excluded)
    return positive or None, negative or None


def _fts5_term(term):
    return '"' + " ".join(term.words) + '"' + ("*" if term.prefix else "")


def ts_excluded(query):
    """The exclusions of ``query`` as PostgreSQL ``to_tsquery`` text (None: none)."""
    return " & ".join("!" + ts_term(term) for term in query.excluded) or None


def ts_term(term):
    """One term as PostgreSQL ``to_tsquery`` text."""
    words = [f"'{word}'" for word in term.words]
    if term.prefix:
        words[-1] += ":*"
    return "(" + " <-> ".join(words) + ")"
