@_exported public import HTTPFixtures
