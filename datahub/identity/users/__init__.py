"""Users: the account model, password rules and the operator CLI."""
