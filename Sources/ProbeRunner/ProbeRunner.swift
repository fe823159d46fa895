// The ProbeRunner module; see DESIGN.md.
