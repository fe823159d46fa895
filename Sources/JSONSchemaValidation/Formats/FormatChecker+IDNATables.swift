/// Unicode data for IDNA2008's contextual rules and the Bidi rule, for the code points IDNA2008 permits.
///
/// Generated from the Unicode Character Database 17.0 (`DerivedBidiClass.txt`, `ArabicShaping.txt`, `Scripts.txt`)
/// and kept small: only code points whose derived property (RFC 5892) is PVALID, CONTEXTJ or CONTEXTO are described,
/// a range runs on across code points IDNA2008 never permits, and values that follow from the General_Category (the
/// defaults of ``FormatChecker/IDNA/bidiClass(of:)`` and ``FormatChecker/IDNA/joiningType(of:)``) are left out. The
/// lookups are therefore right only for permitted code points, the only ones a label reaching them can hold.
extension FormatChecker.IDNA {
    /// A Bidi_Class value (Unicode Standard Annex #9), as far as the Bidi rule of RFC 5893 tells them apart.
    enum BidiClass: UInt8, Sendable {
        /// L: left-to-right.
        case leftToRight
        /// R: right-to-left.
        case rightToLeft
        /// AL: right-to-left Arabic.
        case arabicLetter
        /// EN: European number.
        case europeanNumber
        /// ES: European separator.
        case europeanSeparator
        /// ET: European terminator.
        case europeanTerminator
        /// AN: Arabic number.
        case arabicNumber
        /// CS: common separator.
        case commonSeparator
        /// NSM: nonspacing mark.
        case nonspacingMark
        /// BN: boundary neutral.
        case boundaryNeutral
        /// ON: other neutral.
        case otherNeutral
        /// Any other class (B, S, WS, LRE, …), which the Bidi rule allows nowhere.
        case other
    }

    /// A Joining_Type value (Unicode `ArabicShaping.txt`), for the ZERO WIDTH NON-JOINER rule of RFC 5892 A.1.
    enum JoiningType: UInt8, Sendable {
        /// U: non-joining.
        case nonJoining
        /// D: dual-joining.
        case dualJoining
        /// L: left-joining.
        case leftJoining
        /// R: right-joining.
        case rightJoining
        /// C: join-causing.
        case joinCausing
        /// T: transparent.
        case transparent
    }

    /// The scripts that the CONTEXTO rules of RFC 5892 Appendix A name.
    enum Script: UInt8, Sendable {
        /// Greek (after GREEK LOWER NUMERAL SIGN).
        case greek
        /// Hebrew (before HEBREW PUNCTUATION GERESH and GERSHAYIM).
        case hebrew
        /// Hiragana (with KATAKANA MIDDLE DOT).
        case hiragana
        /// Katakana (with KATAKANA MIDDLE DOT).
        case katakana
        /// Han (with KATAKANA MIDDLE DOT).
        case han
    }

    /// The Bidi class of `scalar`, a code point IDNA2008 permits: ASCII letters, digits and the hyphen directly,
    /// others from the table, else NSM for a nonspacing or enclosing mark and L for anything else.
    static func bidiClass(of scalar: Unicode.Scalar) -> BidiClass {
        switch scalar.value {
        case 0x30...0x39: return .europeanNumber
        case 0x2D: return .europeanSeparator
        case 0x41...0x5A, 0x61...0x7A: return .leftToRight
        default: break
        }
        if let value = lookUp(scalar.value, in: bidiClasses) { return value }
        return defaultBidiClass(scalar.properties.generalCategory)
    }

    /// The Bidi class of `scalar`, a code point IDNA2008 permits, whose General_Category the caller has read already
    /// (`category`).
    static func bidiClass(of scalar: Unicode.Scalar, category: Unicode.GeneralCategory) -> BidiClass {
        if scalar.value < 0x80 { return bidiClass(of: scalar) }
        return lookUp(scalar.value, in: bidiClasses) ?? defaultBidiClass(category)
    }

    /// The Bidi class of a permitted code point outside the table: NSM for a mark that is not spacing, else L.
    private static func defaultBidiClass(_ category: Unicode.GeneralCategory) -> BidiClass {
        switch category {
        case .nonspacingMark, .enclosingMark: return .nonspacingMark
        default: return .leftToRight
        }
    }

    /// The joining type of `scalar`, a code point IDNA2008 permits: from the table, else T (transparent) for a
    /// nonspacing or enclosing mark or a format character, and U (non-joining) for anything else.
    static func joiningType(of scalar: Unicode.Scalar) -> JoiningType {
        if let value = lookUp(scalar.value, in: joiningTypes) { return value }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return .transparent
        default: return .nonJoining
        }
    }

    /// The script of `scalar`, a code point IDNA2008 permits, when it is one the CONTEXTO rules name.
    static func script(of scalar: Unicode.Scalar) -> Script? {
        lookUp(scalar.value, in: scripts)
    }

    /// The value of the range of `table` (sorted, not overlapping) that holds `codePoint`, if one does.
    private static func lookUp<Value>(_ codePoint: UInt32, in table: [(first: UInt32, last: UInt32, value: Value)])
        -> Value?
    {
        var low = 0
        var high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle].last < codePoint {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < table.count, table[low].first <= codePoint else { return nil }
        return table[low].value
    }

    /// Bidi classes other than the default (56 ranges).
    private static let bidiClasses: [(first: UInt32, last: UInt32, value: BidiClass)] = [
        (0x002D, 0x002D, .europeanSeparator), (0x0030, 0x0039, .europeanNumber), (0x00B7, 0x00B7, .otherNeutral),
        (0x02B9, 0x02BA, .otherNeutral), (0x02C6, 0x02CF, .otherNeutral), (0x02EC, 0x02EC, .otherNeutral),
        (0x0375, 0x0375, .otherNeutral), (0x05D0, 0x05F4, .rightToLeft), (0x0620, 0x064A, .arabicLetter),
        (0x0660, 0x0669, .arabicNumber), (0x066E, 0x066F, .arabicLetter), (0x0671, 0x06D5, .arabicLetter),
        (0x06E5, 0x06E6, .arabicLetter), (0x06EE, 0x06EF, .arabicLetter), (0x06F0, 0x06F9, .europeanNumber),
        (0x06FA, 0x0710, .arabicLetter), (0x0712, 0x072F, .arabicLetter), (0x074D, 0x07A5, .arabicLetter),
        (0x07B1, 0x07B1, .arabicLetter), (0x07C0, 0x07EA, .rightToLeft), (0x07F4, 0x07F5, .rightToLeft),
        (0x0800, 0x0815, .rightToLeft), (0x081A, 0x081A, .rightToLeft), (0x0824, 0x0824, .rightToLeft),
        (0x0828, 0x0828, .rightToLeft), (0x0840, 0x0858, .rightToLeft), (0x0860, 0x088F, .arabicLetter),
        (0x08A0, 0x08C9, .arabicLetter), (0x0CBF, 0x0CBF, .leftToRight), (0x0CC6, 0x0CC6, .leftToRight),
        (0x200C, 0x200D, .boundaryNeutral), (0x2E2F, 0x2E2F, .otherNeutral), (0x30FB, 0x30FB, .otherNeutral),
        (0xA67F, 0xA67F, .otherNeutral), (0xA717, 0xA71F, .otherNeutral), (0xA788, 0xA788, .otherNeutral),
        (0xFE73, 0xFE73, .arabicLetter), (0x10800, 0x10A00, .rightToLeft), (0x10A10, 0x10A35, .rightToLeft),
        (0x10A60, 0x10AE4, .rightToLeft), (0x10B00, 0x10CF2, .rightToLeft), (0x10D00, 0x10D23, .arabicLetter),
        (0x10D30, 0x10D49, .arabicNumber), (0x10D4A, 0x10D4F, .rightToLeft), (0x10D6F, 0x10EA9, .rightToLeft),
        (0x10EB0, 0x10EB1, .rightToLeft), (0x10EC2, 0x10EC7, .arabicLetter), (0x10F00, 0x10F27, .rightToLeft),
        (0x10F30, 0x10F45, .arabicLetter), (0x10F70, 0x10F81, .rightToLeft), (0x10FB0, 0x10FF6, .rightToLeft),
        (0x11A07, 0x11A08, .leftToRight), (0x11C3F, 0x11C3F, .leftToRight), (0x1E800, 0x1E8C4, .rightToLeft),
        (0x1E922, 0x1E943, .rightToLeft), (0x1E94B, 0x1E959, .rightToLeft),
    ]

    /// Joining types other than the default (138 ranges).
    private static let joiningTypes: [(first: UInt32, last: UInt32, value: JoiningType)] = [
        (0x0620, 0x0620, .dualJoining), (0x0622, 0x0625, .rightJoining), (0x0626, 0x0626, .dualJoining),
        (0x0627, 0x0627, .rightJoining), (0x0628, 0x0628, .dualJoining), (0x0629, 0x0629, .rightJoining),
        (0x062A, 0x062E, .dualJoining), (0x062F, 0x0632, .rightJoining), (0x0633, 0x0647, .dualJoining),
        (0x0648, 0x0648, .rightJoining), (0x0649, 0x064A, .dualJoining), (0x066E, 0x066F, .dualJoining),
        (0x0671, 0x0673, .rightJoining), (0x0679, 0x0687, .dualJoining), (0x0688, 0x0699, .rightJoining),
        (0x069A, 0x06BF, .dualJoining), (0x06C0, 0x06C0, .rightJoining), (0x06C1, 0x06C2, .dualJoining),
        (0x06C3, 0x06CB, .rightJoining), (0x06CC, 0x06CC, .dualJoining), (0x06CD, 0x06CD, .rightJoining),
        (0x06CE, 0x06CE, .dualJoining), (0x06CF, 0x06CF, .rightJoining), (0x06D0, 0x06D1, .dualJoining),
        (0x06D2, 0x06D5, .rightJoining), (0x06EE, 0x06EF, .rightJoining), (0x06FA, 0x06FC, .dualJoining),
        (0x06FF, 0x06FF, .dualJoining), (0x0710, 0x0710, .rightJoining), (0x0712, 0x0714, .dualJoining),
        (0x0715, 0x0719, .rightJoining), (0x071A, 0x071D, .dualJoining), (0x071E, 0x071E, .rightJoining),
        (0x071F, 0x0727, .dualJoining), (0x0728, 0x0728, .rightJoining), (0x0729, 0x0729, .dualJoining),
        (0x072A, 0x072A, .rightJoining), (0x072B, 0x072B, .dualJoining), (0x072C, 0x072C, .rightJoining),
        (0x072D, 0x072E, .dualJoining), (0x072F, 0x072F, .rightJoining), (0x074D, 0x074D, .rightJoining),
        (0x074E, 0x0758, .dualJoining), (0x0759, 0x075B, .rightJoining), (0x075C, 0x076A, .dualJoining),
        (0x076B, 0x076C, .rightJoining), (0x076D, 0x0770, .dualJoining), (0x0771, 0x0771, .rightJoining),
        (0x0772, 0x0772, .dualJoining), (0x0773, 0x0774, .rightJoining), (0x0775, 0x0777, .dualJoining),
        (0x0778, 0x0779, .rightJoining), (0x077A, 0x077F, .dualJoining), (0x07CA, 0x07EA, .dualJoining),
        (0x0840, 0x0840, .rightJoining), (0x0841, 0x0845, .dualJoining), (0x0846, 0x0847, .rightJoining),
        (0x0848, 0x0848, .dualJoining), (0x0849, 0x0849, .rightJoining), (0x084A, 0x0853, .dualJoining),
        (0x0854, 0x0854, .rightJoining), (0x0855, 0x0855, .dualJoining), (0x0856, 0x0858, .rightJoining),
        (0x0860, 0x0860, .dualJoining), (0x0862, 0x0865, .dualJoining), (0x0867, 0x0867, .rightJoining),
        (0x0868, 0x0868, .dualJoining), (0x0869, 0x0882, .rightJoining), (0x0883, 0x0885, .joinCausing),
        (0x0886, 0x0886, .dualJoining), (0x0889, 0x088D, .dualJoining), (0x088E, 0x088E, .rightJoining),
        (0x088F, 0x088F, .dualJoining), (0x08A0, 0x08A9, .dualJoining), (0x08AA, 0x08AC, .rightJoining),
        (0x08AE, 0x08AE, .rightJoining), (0x08AF, 0x08B0, .dualJoining), (0x08B1, 0x08B2, .rightJoining),
        (0x08B3, 0x08B8, .dualJoining), (0x08B9, 0x08B9, .rightJoining), (0x08BA, 0x08C8, .dualJoining),
        (0x1820, 0x1878, .dualJoining), (0x1887, 0x18A8, .dualJoining), (0x18AA, 0x18AA, .dualJoining),
        (0x200C, 0x200C, .nonJoining), (0x200D, 0x200D, .joinCausing), (0xA840, 0xA871, .dualJoining),
        (0xA872, 0xA872, .leftJoining), (0x10AC0, 0x10AC4, .dualJoining), (0x10AC5, 0x10AC5, .rightJoining),
        (0x10AC7, 0x10ACA, .rightJoining), (0x10ACD, 0x10ACD, .leftJoining), (0x10ACE, 0x10AD2, .rightJoining),
        (0x10AD3, 0x10AD6, .dualJoining), (0x10AD7, 0x10AD7, .leftJoining), (0x10AD8, 0x10ADC, .dualJoining),
        (0x10ADD, 0x10ADD, .rightJoining), (0x10ADE, 0x10AE0, .dualJoining), (0x10AE1, 0x10AE1, .rightJoining),
        (0x10AE4, 0x10AE4, .rightJoining), (0x10B80, 0x10B80, .dualJoining), (0x10B81, 0x10B81, .rightJoining),
        (0x10B82, 0x10B82, .dualJoining), (0x10B83, 0x10B85, .rightJoining), (0x10B86, 0x10B88, .dualJoining),
        (0x10B89, 0x10B89, .rightJoining), (0x10B8A, 0x10B8B, .dualJoining), (0x10B8C, 0x10B8C, .rightJoining),
        (0x10B8D, 0x10B8D, .dualJoining), (0x10B8E, 0x10B8F, .rightJoining), (0x10B90, 0x10B90, .dualJoining),
        (0x10B91, 0x10B91, .rightJoining), (0x10D00, 0x10D00, .leftJoining), (0x10D01, 0x10D21, .dualJoining),
        (0x10D22, 0x10D22, .rightJoining), (0x10D23, 0x10D23, .dualJoining), (0x10EC2, 0x10EC2, .rightJoining),
        (0x10EC3, 0x10EC4, .dualJoining), (0x10EC6, 0x10EC7, .dualJoining), (0x10F30, 0x10F32, .dualJoining),
        (0x10F33, 0x10F33, .rightJoining), (0x10F34, 0x10F44, .dualJoining), (0x10F70, 0x10F73, .dualJoining),
        (0x10F74, 0x10F75, .rightJoining), (0x10F76, 0x10F81, .dualJoining), (0x10FB0, 0x10FB0, .dualJoining),
        (0x10FB2, 0x10FB3, .dualJoining), (0x10FB4, 0x10FB6, .rightJoining), (0x10FB8, 0x10FB8, .dualJoining),
        (0x10FB9, 0x10FBA, .rightJoining), (0x10FBB, 0x10FBC, .dualJoining), (0x10FBD, 0x10FBD, .rightJoining),
        (0x10FBE, 0x10FBF, .dualJoining), (0x10FC1, 0x10FC1, .dualJoining), (0x10FC2, 0x10FC3, .rightJoining),
        (0x10FC4, 0x10FC4, .dualJoining), (0x1E922, 0x1E943, .dualJoining), (0x1E94B, 0x1E94B, .transparent),
    ]

    /// Code points of the scripts the CONTEXTO rules name (24 ranges).
    private static let scripts: [(first: UInt32, last: UInt32, value: Script)] = [
        (0x0371, 0x03E1, .greek), (0x03F3, 0x03FC, .greek), (0x0591, 0x05F4, .hebrew), (0x1D26, 0x1D2A, .greek),
        (0x1F00, 0x1FF6, .greek), (0x3005, 0x3005, .han), (0x3007, 0x3007, .han), (0x3041, 0x3096, .hiragana),
        (0x309D, 0x309E, .hiragana), (0x30A1, 0x30FA, .katakana), (0x30FD, 0x30FE, .katakana),
        (0x31F0, 0x31FF, .katakana), (0x3400, 0x9FFF, .han), (0xAB65, 0xAB65, .greek), (0xFA0E, 0xFA29, .han),
        (0xFB1E, 0xFB1E, .hebrew), (0x16FE3, 0x16FE3, .han), (0x16FF0, 0x16FF3, .han), (0x1AFF0, 0x1B000, .katakana),
        (0x1B001, 0x1B11F, .hiragana), (0x1B120, 0x1B122, .katakana), (0x1B132, 0x1B152, .hiragana),
        (0x1B155, 0x1B167, .katakana), (0x20000, 0x33479, .han),
    ]
}
