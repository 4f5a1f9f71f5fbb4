"""The operator console: operators, their acts on the fleet's tables, and the audit log."""
