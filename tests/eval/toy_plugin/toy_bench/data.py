"""The toy benchmark's data: country -> capital."""

CAPITALS = {
    "France": "Paris",
    "Italy": "Rome",
    "Japan": "Tokyo",
    "Kenya": "Nairobi",
    "Peru": "Lima",
    "Norway": "Oslo",
}
