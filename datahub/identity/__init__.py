"""The identity core: users, passwords, tokens, sessions, the request guard and
``current_user``. Every feature may use it; it uses no feature."""
