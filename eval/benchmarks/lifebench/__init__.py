"""LifeBench (2025; 1754955896/LifeBench): a year of one person's phone -- messages, calls, calendar,
notes, photos, notifications, assistant chats -- asked about at points in time, with questions citing
the records they need; loader, time and evidence rules, protocol, judges and report."""
