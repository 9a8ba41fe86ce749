"""LoCoMo (Maharana et al., ACL 2024; snap-research/LoCoMo): loader, protocol, judges, scoring, report."""
