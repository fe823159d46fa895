// The RecipesAPI module; see DESIGN.md.
