"""A DataHub ingestion source for Cairn (`source.type: cairn`)."""
