/// Patterns from real descriptions, for the tests that need one (a pattern is a fact about a vendor's file, a line
/// long, unlike the files themselves, which stay in `shared/real-collections`).
public enum RealPatterns {
    /// PayPal's `components/schemas/email/pattern` (paypal/paypal-rest-api-specifications, Apache-2.0,
    /// `openapi/checkout_orders_v2.json` at 81a5238 and 2e9b528): an RFC 5322 address pattern whose `\[\x01-…]` has
    /// a lone `]`, valid only in ECMA-262's Annex B.
    public static let paypalEmail =
        #"(?:[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*|(?:[\x01-\x08\x0b\x0c\x0e-\x1f\x21\x23-\x5b\x5d-\x7f]|\[\x01-\x09\x0b\x0c\x0e-\x7f])*")@(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?|\[(?:(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9]))\.){3}(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9])|[a-zA-Z0-9-]*[a-zA-Z0-9]:(?:[\x01-\x08\x0b\x0c\x0e-\x1f\x21-\x5a\x53-\x7f]|\[\x01-\x09\x0b\x0c\x0e-\x7f])+)\])"#
}
