"""Framework apps, each written once and served by many server adapters."""
