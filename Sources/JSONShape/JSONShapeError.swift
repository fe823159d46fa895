public import HTTPFixtures

/// Input that JSONShape cannot read; the one `InputError` of HTTPFixtures.
///
/// ```
/// samples/search.json:3:14: expected ',' or '}', found '"'
/// Snapshots/recipes/search.schema.json: /properties/id/type: expected a JSON type name, found string "int"
/// ```
@available(*, deprecated, renamed: "InputError")
public typealias JSONShapeError = InputError
