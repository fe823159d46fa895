import Testing

@testable import OpenAPISupport
