// The ContractTesting module; see DESIGN.md.
