"""What a result shows of why it matched: its text HTML-escaped, with the words the query
matched in ``<mark>``, and the columns whose name or values matched.

The databases decide what matches (stemmed); this only points at it, by a lighter rule
that agrees on what people type: the same word without accents and case, a longer word
when the query's word is a prefix, or a word of the same stem (an English suffix or two)."""

import html
import re

from datahub.search.query import WORD, fold

SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
EXCERPT_CHARS = 300
MAX_MATCHED_COLUMNS = 5


def stem(word):
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


class Matcher:
    """Whether a word of a text is one the query asked for."""

    def __init__(self, words):
        self.exact, self.prefixes, self.stems = set(), [], set()
        self._seen = {}  # word as written → whether it matches (a README repeats its words)
        for word, prefix in words:
            self.exact.add(word)
            self.stems.add(stem(word))
            if prefix:
                self.prefixes.append(word)
        # A matching word starts with the stem of a query word (a stem is a prefix of its
        # word, and a query prefix starts with its stem): a text without any is skipped.
        self.heads = tuple(self.stems)

    def __bool__(self):
        return bool(self.exact)

    def matches(self, word):
        found = self._seen.get(word)
        if found is None:
            folded = fold(word)
            found = self._seen[word] = folded.startswith(self.heads) and (
                folded in self.exact
                or stem(folded) in self.stems
                or any(folded.startswith(prefix) for prefix in self.prefixes)
            )
        return found


def marked(text, matcher, excerpt=None):
    """``text`` HTML-escaped with matches in ``<mark>``; None when nothing matched. With
    ``excerpt`` characters, only a window of that size around the first match (the words
    after it are not looked at)."""
    if not _may_match(text, matcher.heads):
        return None
    spans, start, end = [], 0, len(text)
    for word in WORD.finditer(text):
        if word.start() >= end:
            break
        if matcher.matches(word.group()):
            if not spans and excerpt is not None and len(text) > excerpt:
                start = max(0, word.start() - excerpt // 3)
                end = min(len(text), start + excerpt)
            spans.append(word.span())
    if not spans:
        return None
    out, position = [], start
    for first, last in spans:
        if last > end:
            continue
        out += [
            html.escape(text[position:first]),
            "<mark>",
            html.escape(text[first:last]),
            "</mark>",
        ]
        position = last
    out.append(html.escape(text[position:end]))
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    return prefix + "".join(out) + suffix


def _may_match(text, heads):
    """False when no word of ``text`` can match: an ASCII text (lowercased, as folded)
    holds none of the query's stems."""
    if not heads:
        return False
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(head in lowered for head in heads)


def highlights(matcher, name, description, readme):
    found = {}
    for key, text, excerpt in (
        ("name", name, None),
        ("description", description, EXCERPT_CHARS),
        ("readme", readme, EXCERPT_CHARS),
    ):
        if text and matcher:
            value = marked(text, matcher, excerpt)
            if value is not None:
                found[key] = value
    return found


def matched_columns(matcher, column_data, column_names):
    """``[{"name", "value"?}]``: the columns whose name, or one of whose indexed values,
    the query matched (at most five)."""
    if not matcher:
        return []
    found = []
    columns = column_data or [{"name": name} for name in column_names]
    for column in columns:
        name = column.get("name") or ""
        if any(matcher.matches(word) for word in WORD.findall(name)):
            found.append({"name": name})
        else:
            value = next(
                (
                    str(value)
                    for value in column.get("values") or ()
                    if any(matcher.matches(word) for word in WORD.findall(str(value)))
                ),
                None,
            )
            if value is not None:
                found.append({"name": name, "value": value})
        if len(found) >= MAX_MATCHED_COLUMNS:
            break
    return found


def short(text, limit=EXCERPT_CHARS):
    text = re.sub(r"\s+", " ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
