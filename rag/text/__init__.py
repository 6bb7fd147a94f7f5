"""Text as the rest reads it, in English and Russian: Snowball stems and query terms, sentences with their lines,
wikilinks as a reader sees them, names by sound across scripts. Pure; knows nothing about notes, the index or answers."""
