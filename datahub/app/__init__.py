"""The app: its settings and what it keeps one of (the lowest layer), its extension objects
and Flask class (the web layer's), and the factory that assembles every layer (the top)."""
