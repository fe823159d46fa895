// The HTTPStubs module; see DESIGN.md.
