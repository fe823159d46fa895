// A test target needs one import: `import ContractTesting` brings the fixture model, the stub layer and the
// schema tools along.
@_exported public import HTTPFixtures
@_exported public import HTTPStubs
@_exported public import JSONShape
