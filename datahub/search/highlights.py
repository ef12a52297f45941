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

    def __bool__(self):
        return bool(self.exact)

    def matches(self, word):
        found = self._seen.get(word)
        if found is None:
            folded = fold(word)
            found = self._seen[word] = (
                folded in self.exact
                or stem(folded) in self.stems
                or any(folded.startswith(prefix) for prefix in self.prefixes)
            )
        return found


def marked(text, matcher, excerpt=None):
    """``text`` HTML-escaped with matches in ``<mark>``; None when nothing matched. With
    ``excerpt`` characters, only a window of that size around the first match."""
    spans = [m.span() for m in WORD.finditer(text) if matcher.matches(m.group())]
    if not spans:
        return None
    start, end = 0, len(text)
    if excerpt is not None and len(text) > excerpt:
        start = max(0, spans[0][0] - excerpt // 3)
        end = min(len(text), start + excerpt)
    out, position = [], start
    for first, last in spans:
        if first < start or last > end:
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
