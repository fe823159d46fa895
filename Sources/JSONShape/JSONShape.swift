// The JSONShape module; see DESIGN.md.
