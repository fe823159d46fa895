// A test target needs one import: `import ContractTesting` brings the fixture model along.
// HTTPStubs and JSONShape are re-exported here too once they are wired in.
@_exported public import HTTPFixtures
