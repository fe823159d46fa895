// The Unicode property names and values ECMA-262 accepts in `\p{…}` and `\P{…}` (ECMAScript 2025, tables 66 to 68,
// with the values of PropertyValueAliases.txt of Unicode 17). Matching is exact: ECMA-262 does no loose matching, so
// `\p{letter}` and `\p{Script=greek}` are syntax errors. Properties of strings (`\p{RGI_Emoji}`) need the `v` flag,
// which JSON Schema does not use, and are not here.

/// A property that a `\p{…}` escape names, in the form the ICU pattern is given.
enum ECMARegexUnicodeProperty: Hashable, Sendable {
    /// A General_Category value, by its short alias (`Lu`, `L`, `Nd`…).
    case generalCategory(String)
    /// A Script value (a Script_Extensions one when `extensions` is true), by its long name (`Greek`).
    case script(String, extensions: Bool)
    /// A binary property by its long name (`Alphabetic`), or one of ECMA-262's `Any`, `ASCII` and `Assigned`.
    case binary(String)

    /// `\p{Name=Value}`: nil unless the name is General_Category, Script or Script_Extensions (or a short alias of
    /// one) and the value is one of that property's values.
    init?(name: String, value: String) {
        switch name {
        case "General_Category", "gc":
            guard let short = Self.generalCategories[value] else { return nil }
            self = .generalCategory(short)
        case "Script", "sc", "Script_Extensions", "scx":
            guard let long = Self.scripts[value] else { return nil }
            self = .script(long, extensions: name == "Script_Extensions" || name == "scx")
        default:
            return nil
        }
    }

    /// `\p{NameOrValue}`: a General_Category value or a binary property; nil for anything else.
    init?(loneNameOrValue: String) {
        if let short = Self.generalCategories[loneNameOrValue] {
            self = .generalCategory(short)
        } else if let long = Self.binaryProperties[loneNameOrValue] {
            self = .binary(long)
        } else {
            return nil
        }
    }

    /// Whether `name` may stand before `=` in a property escape.
    static func isPropertyName(_ name: String) -> Bool {
        ["General_Category", "gc", "Script", "sc", "Script_Extensions", "scx"].contains(name)
    }

    /// The escape in canonical form, for messages.
    var canonicalText: String {
        switch self {
        case .generalCategory(let short): #"\p{General_Category=\#(short)}"#
        case .script(let long, let extensions): #"\p{\#(extensions ? "Script_Extensions" : "Script")=\#(long)}"#
        case .binary(let long): #"\p{\#(long)}"#
        }
    }

    /// An ICU set member with exactly the property's code points, for use inside `[…]`.
    var icuOperand: String {
        switch self {
        case .generalCategory(let short): #"\p{gc=\#(short)}"#
        case .script(let long, let extensions): #"\p{\#(extensions ? "scx" : "sc")=\#(long)}"#
        case .binary("Any"): #"[\x{0}-\x{10FFFF}]"#
        case .binary("ASCII"): #"[\x{0}-\x{7F}]"#
        case .binary("Assigned"): #"\P{gc=Cn}"#
        case .binary(let long): #"\p{\#(long)}"#
        }
    }

    /// An ICU set member with exactly the code points outside the property, for use inside `[…]`.
    var icuComplementOperand: String {
        switch self {
        case .generalCategory(let short): #"\P{gc=\#(short)}"#
        case .script(let long, let extensions): #"\P{\#(extensions ? "scx" : "sc")=\#(long)}"#
        case .binary("Any"): #"[^\x{0}-\x{10FFFF}]"#
        case .binary("ASCII"): #"[\x{80}-\x{10FFFF}]"#
        case .binary("Assigned"): #"\p{gc=Cn}"#
        case .binary(let long): #"\P{\#(long)}"#
        }
    }

    /// ECMA-262's names and aliases of General_Category values (table 68), each mapped to the short alias.
    static let generalCategories: [String: String] = [
        "C": "C", "Other": "C", "Cc": "Cc", "Control": "Cc", "cntrl": "Cc", "Cf": "Cf", "Format": "Cf", "Cn": "Cn",
        "Unassigned": "Cn", "Co": "Co", "Private_Use": "Co", "Cs": "Cs", "Surrogate": "Cs", "L": "L", "Letter": "L",
        "LC": "LC", "Cased_Letter": "LC", "Ll": "Ll", "Lowercase_Letter": "Ll", "Lm": "Lm", "Modifier_Letter": "Lm",
        "Lo": "Lo", "Other_Letter": "Lo", "Lt": "Lt", "Titlecase_Letter": "Lt", "Lu": "Lu", "Uppercase_Letter": "Lu",
        "M": "M", "Combining_Mark": "M", "Mark": "M", "Mc": "Mc", "Spacing_Mark": "Mc", "Me": "Me",
        "Enclosing_Mark": "Me", "Mn": "Mn", "Nonspacing_Mark": "Mn", "N": "N", "Number": "N", "Nd": "Nd",
        "Decimal_Number": "Nd", "digit": "Nd", "Nl": "Nl", "Letter_Number": "Nl", "No": "No", "Other_Number": "No",
        "P": "P", "Punctuation": "P", "punct": "P", "Pc": "Pc", "Connector_Punctuation": "Pc", "Pd": "Pd",
        "Dash_Punctuation": "Pd", "Pe": "Pe", "Close_Punctuation": "Pe", "Pf": "Pf", "Final_Punctuation": "Pf",
        "Pi": "Pi", "Initial_Punctuation": "Pi", "Po": "Po", "Other_Punctuation": "Po", "Ps": "Ps",
        "Open_Punctuation": "Ps", "S": "S", "Symbol": "S", "Sc": "Sc", "Currency_Symbol": "Sc", "Sk": "Sk",
        "Modifier_Symbol": "Sk", "Sm": "Sm", "Math_Symbol": "Sm", "So": "So", "Other_Symbol": "So", "Z": "Z",
        "Separator": "Z", "Zl": "Zl", "Line_Separator": "Zl", "Zp": "Zp", "Paragraph_Separator": "Zp", "Zs": "Zs",
        "Space_Separator": "Zs",
    ]

    /// The names and aliases of Script (and Script_Extensions) values, each mapped to the long name.
    static let scripts: [String: String] = [
        "Adlam": "Adlam", "Adlm": "Adlam", "Ahom": "Ahom", "Anatolian_Hieroglyphs": "Anatolian_Hieroglyphs",
        "Hluw": "Anatolian_Hieroglyphs", "Arabic": "Arabic", "Arab": "Arabic", "Armenian": "Armenian",
        "Armn": "Armenian", "Avestan": "Avestan", "Avst": "Avestan", "Balinese": "Balinese", "Bali": "Balinese",
        "Bamum": "Bamum", "Bamu": "Bamum", "Bassa_Vah": "Bassa_Vah", "Bass": "Bassa_Vah", "Batak": "Batak",
        "Batk": "Batak", "Bengali": "Bengali", "Beng": "Bengali", "Beria_Erfe": "Beria_Erfe", "Berf": "Beria_Erfe",
        "Bhaiksuki": "Bhaiksuki", "Bhks": "Bhaiksuki", "Bopomofo": "Bopomofo", "Bopo": "Bopomofo", "Brahmi": "Brahmi",
        "Brah": "Brahmi", "Braille": "Braille", "Brai": "Braille", "Buginese": "Buginese", "Bugi": "Buginese",
        "Buhid": "Buhid", "Buhd": "Buhid", "Canadian_Aboriginal": "Canadian_Aboriginal",
        "Cans": "Canadian_Aboriginal", "Carian": "Carian", "Cari": "Carian",
        "Caucasian_Albanian": "Caucasian_Albanian", "Aghb": "Caucasian_Albanian", "Chakma": "Chakma",
        "Cakm": "Chakma", "Cham": "Cham", "Cherokee": "Cherokee", "Cher": "Cherokee", "Chorasmian": "Chorasmian",
        "Chrs": "Chorasmian", "Common": "Common", "Zyyy": "Common", "Coptic": "Coptic", "Copt": "Coptic",
        "Qaac": "Coptic", "Cuneiform": "Cuneiform", "Xsux": "Cuneiform", "Cypriot": "Cypriot", "Cprt": "Cypriot",
        "Cypro_Minoan": "Cypro_Minoan", "Cpmn": "Cypro_Minoan", "Cyrillic": "Cyrillic", "Cyrl": "Cyrillic",
        "Deseret": "Deseret", "Dsrt": "Deseret", "Devanagari": "Devanagari", "Deva": "Devanagari",
        "Dives_Akuru": "Dives_Akuru", "Diak": "Dives_Akuru", "Dogra": "Dogra", "Dogr": "Dogra",
        "Duployan": "Duployan", "Dupl": "Duployan", "Egyptian_Hieroglyphs": "Egyptian_Hieroglyphs",
        "Egyp": "Egyptian_Hieroglyphs", "Elbasan": "Elbasan", "Elba": "Elbasan", "Elymaic": "Elymaic",
        "Elym": "Elymaic", "Ethiopic": "Ethiopic", "Ethi": "Ethiopic", "Garay": "Garay", "Gara": "Garay",
        "Georgian": "Georgian", "Geor": "Georgian", "Glagolitic": "Glagolitic", "Glag": "Glagolitic",
        "Gothic": "Gothic", "Goth": "Gothic", "Grantha": "Grantha", "Gran": "Grantha", "Greek": "Greek",
        "Grek": "Greek", "Gujarati": "Gujarati", "Gujr": "Gujarati", "Gunjala_Gondi": "Gunjala_Gondi",
        "Gong": "Gunjala_Gondi", "Gurmukhi": "Gurmukhi", "Guru": "Gurmukhi", "Gurung_Khema": "Gurung_Khema",
        "Gukh": "Gurung_Khema", "Han": "Han", "Hani": "Han", "Hangul": "Hangul", "Hang": "Hangul",
        "Hanifi_Rohingya": "Hanifi_Rohingya", "Rohg": "Hanifi_Rohingya", "Hanunoo": "Hanunoo", "Hano": "Hanunoo",
        "Hatran": "Hatran", "Hatr": "Hatran", "Hebrew": "Hebrew", "Hebr": "Hebrew", "Hiragana": "Hiragana",
        "Hira": "Hiragana", "Imperial_Aramaic": "Imperial_Aramaic", "Armi": "Imperial_Aramaic",
        "Inherited": "Inherited", "Qaai": "Inherited", "Zinh": "Inherited",
        "Inscriptional_Pahlavi": "Inscriptional_Pahlavi", "Phli": "Inscriptional_Pahlavi",
        "Inscriptional_Parthian": "Inscriptional_Parthian", "Prti": "Inscriptional_Parthian", "Javanese": "Javanese",
        "Java": "Javanese", "Kaithi": "Kaithi", "Kthi": "Kaithi", "Kannada": "Kannada", "Knda": "Kannada",
        "Katakana": "Katakana", "Kana": "Katakana", "Katakana_Or_Hiragana": "Katakana_Or_Hiragana",
        "Hrkt": "Katakana_Or_Hiragana", "Kawi": "Kawi", "Kayah_Li": "Kayah_Li", "Kali": "Kayah_Li",
        "Kharoshthi": "Kharoshthi", "Khar": "Kharoshthi", "Khitan_Small_Script": "Khitan_Small_Script",
        "Kits": "Khitan_Small_Script", "Khmer": "Khmer", "Khmr": "Khmer", "Khojki": "Khojki", "Khoj": "Khojki",
        "Khudawadi": "Khudawadi", "Sind": "Khudawadi", "Kirat_Rai": "Kirat_Rai", "Krai": "Kirat_Rai", "Lao": "Lao",
        "Laoo": "Lao", "Latin": "Latin", "Latn": "Latin", "Lepcha": "Lepcha", "Lepc": "Lepcha", "Limbu": "Limbu",
        "Limb": "Limbu", "Linear_A": "Linear_A", "Lina": "Linear_A", "Linear_B": "Linear_B", "Linb": "Linear_B",
        "Lisu": "Lisu", "Lycian": "Lycian", "Lyci": "Lycian", "Lydian": "Lydian", "Lydi": "Lydian",
        "Mahajani": "Mahajani", "Mahj": "Mahajani", "Makasar": "Makasar", "Maka": "Makasar", "Malayalam": "Malayalam",
        "Mlym": "Malayalam", "Mandaic": "Mandaic", "Mand": "Mandaic", "Manichaean": "Manichaean",
        "Mani": "Manichaean", "Marchen": "Marchen", "Marc": "Marchen", "Masaram_Gondi": "Masaram_Gondi",
        "Gonm": "Masaram_Gondi", "Medefaidrin": "Medefaidrin", "Medf": "Medefaidrin", "Meetei_Mayek": "Meetei_Mayek",
        "Mtei": "Meetei_Mayek", "Mende_Kikakui": "Mende_Kikakui", "Mend": "Mende_Kikakui",
        "Meroitic_Cursive": "Meroitic_Cursive", "Merc": "Meroitic_Cursive",
        "Meroitic_Hieroglyphs": "Meroitic_Hieroglyphs", "Mero": "Meroitic_Hieroglyphs", "Miao": "Miao",
        "Plrd": "Miao", "Modi": "Modi", "Mongolian": "Mongolian", "Mong": "Mongolian", "Mro": "Mro", "Mroo": "Mro",
        "Multani": "Multani", "Mult": "Multani", "Myanmar": "Myanmar", "Mymr": "Myanmar", "Nabataean": "Nabataean",
        "Nbat": "Nabataean", "Nag_Mundari": "Nag_Mundari", "Nagm": "Nag_Mundari", "Nandinagari": "Nandinagari",
        "Nand": "Nandinagari", "New_Tai_Lue": "New_Tai_Lue", "Talu": "New_Tai_Lue", "Newa": "Newa", "Nko": "Nko",
        "Nkoo": "Nko", "Nushu": "Nushu", "Nshu": "Nushu", "Nyiakeng_Puachue_Hmong": "Nyiakeng_Puachue_Hmong",
        "Hmnp": "Nyiakeng_Puachue_Hmong", "Ogham": "Ogham", "Ogam": "Ogham", "Ol_Chiki": "Ol_Chiki",
        "Olck": "Ol_Chiki", "Ol_Onal": "Ol_Onal", "Onao": "Ol_Onal", "Old_Hungarian": "Old_Hungarian",
        "Hung": "Old_Hungarian", "Old_Italic": "Old_Italic", "Ital": "Old_Italic",
        "Old_North_Arabian": "Old_North_Arabian", "Narb": "Old_North_Arabian", "Old_Permic": "Old_Permic",
        "Perm": "Old_Permic", "Old_Persian": "Old_Persian", "Xpeo": "Old_Persian", "Old_Sogdian": "Old_Sogdian",
        "Sogo": "Old_Sogdian", "Old_South_Arabian": "Old_South_Arabian", "Sarb": "Old_South_Arabian",
        "Old_Turkic": "Old_Turkic", "Orkh": "Old_Turkic", "Old_Uyghur": "Old_Uyghur", "Ougr": "Old_Uyghur",
        "Oriya": "Oriya", "Orya": "Oriya", "Osage": "Osage", "Osge": "Osage", "Osmanya": "Osmanya", "Osma": "Osmanya",
        "Pahawh_Hmong": "Pahawh_Hmong", "Hmng": "Pahawh_Hmong", "Palmyrene": "Palmyrene", "Palm": "Palmyrene",
        "Pau_Cin_Hau": "Pau_Cin_Hau", "Pauc": "Pau_Cin_Hau", "Phags_Pa": "Phags_Pa", "Phag": "Phags_Pa",
        "Phoenician": "Phoenician", "Phnx": "Phoenician", "Psalter_Pahlavi": "Psalter_Pahlavi",
        "Phlp": "Psalter_Pahlavi", "Rejang": "Rejang", "Rjng": "Rejang", "Runic": "Runic", "Runr": "Runic",
        "Samaritan": "Samaritan", "Samr": "Samaritan", "Saurashtra": "Saurashtra", "Saur": "Saurashtra",
        "Sharada": "Sharada", "Shrd": "Sharada", "Shavian": "Shavian", "Shaw": "Shavian", "Siddham": "Siddham",
        "Sidd": "Siddham", "Sidetic": "Sidetic", "Sidt": "Sidetic", "SignWriting": "SignWriting",
        "Sgnw": "SignWriting", "Sinhala": "Sinhala", "Sinh": "Sinhala", "Sogdian": "Sogdian", "Sogd": "Sogdian",
        "Sora_Sompeng": "Sora_Sompeng", "Sora": "Sora_Sompeng", "Soyombo": "Soyombo", "Soyo": "Soyombo",
        "Sundanese": "Sundanese", "Sund": "Sundanese", "Sunuwar": "Sunuwar", "Sunu": "Sunuwar",
        "Syloti_Nagri": "Syloti_Nagri", "Sylo": "Syloti_Nagri", "Syriac": "Syriac", "Syrc": "Syriac",
        "Tagalog": "Tagalog", "Tglg": "Tagalog", "Tagbanwa": "Tagbanwa", "Tagb": "Tagbanwa", "Tai_Le": "Tai_Le",
        "Tale": "Tai_Le", "Tai_Tham": "Tai_Tham", "Lana": "Tai_Tham", "Tai_Viet": "Tai_Viet", "Tavt": "Tai_Viet",
        "Tai_Yo": "Tai_Yo", "Tayo": "Tai_Yo", "Takri": "Takri", "Takr": "Takri", "Tamil": "Tamil", "Taml": "Tamil",
        "Tangsa": "Tangsa", "Tnsa": "Tangsa", "Tangut": "Tangut", "Tang": "Tangut", "Telugu": "Telugu",
        "Telu": "Telugu", "Thaana": "Thaana", "Thaa": "Thaana", "Thai": "Thai", "Tibetan": "Tibetan",
        "Tibt": "Tibetan", "Tifinagh": "Tifinagh", "Tfng": "Tifinagh", "Tirhuta": "Tirhuta", "Tirh": "Tirhuta",
        "Todhri": "Todhri", "Todr": "Todhri", "Tolong_Siki": "Tolong_Siki", "Tols": "Tolong_Siki", "Toto": "Toto",
        "Tulu_Tigalari": "Tulu_Tigalari", "Tutg": "Tulu_Tigalari", "Ugaritic": "Ugaritic", "Ugar": "Ugaritic",
        "Unknown": "Unknown", "Zzzz": "Unknown", "Vai": "Vai", "Vaii": "Vai", "Vithkuqi": "Vithkuqi",
        "Vith": "Vithkuqi", "Wancho": "Wancho", "Wcho": "Wancho", "Warang_Citi": "Warang_Citi", "Wara": "Warang_Citi",
        "Yezidi": "Yezidi", "Yezi": "Yezidi", "Yi": "Yi", "Yiii": "Yi", "Zanabazar_Square": "Zanabazar_Square",
        "Zanb": "Zanabazar_Square",
    ]

    /// ECMA-262's binary properties (table 67) and their aliases, each mapped to the long name.
    static let binaryProperties: [String: String] = [
        "Alphabetic": "Alphabetic", "Alpha": "Alphabetic", "Any": "Any", "ASCII": "ASCII",
        "ASCII_Hex_Digit": "ASCII_Hex_Digit", "AHex": "ASCII_Hex_Digit", "Assigned": "Assigned",
        "Bidi_Control": "Bidi_Control", "Bidi_C": "Bidi_Control", "Bidi_Mirrored": "Bidi_Mirrored",
        "Bidi_M": "Bidi_Mirrored", "Case_Ignorable": "Case_Ignorable", "CI": "Case_Ignorable", "Cased": "Cased",
        "Changes_When_Casefolded": "Changes_When_Casefolded", "CWCF": "Changes_When_Casefolded",
        "Changes_When_Casemapped": "Changes_When_Casemapped", "CWCM": "Changes_When_Casemapped",
        "Changes_When_Lowercased": "Changes_When_Lowercased", "CWL": "Changes_When_Lowercased",
        "Changes_When_NFKC_Casefolded": "Changes_When_NFKC_Casefolded", "CWKCF": "Changes_When_NFKC_Casefolded",
        "Changes_When_Titlecased": "Changes_When_Titlecased", "CWT": "Changes_When_Titlecased",
        "Changes_When_Uppercased": "Changes_When_Uppercased", "CWU": "Changes_When_Uppercased", "Dash": "Dash",
        "Default_Ignorable_Code_Point": "Default_Ignorable_Code_Point", "DI": "Default_Ignorable_Code_Point",
        "Deprecated": "Deprecated", "Dep": "Deprecated", "Diacritic": "Diacritic", "Dia": "Diacritic",
        "Emoji": "Emoji", "Emoji_Component": "Emoji_Component", "EComp": "Emoji_Component",
        "Emoji_Modifier": "Emoji_Modifier", "EMod": "Emoji_Modifier", "Emoji_Modifier_Base": "Emoji_Modifier_Base",
        "EBase": "Emoji_Modifier_Base", "Emoji_Presentation": "Emoji_Presentation", "EPres": "Emoji_Presentation",
        "Extended_Pictographic": "Extended_Pictographic", "ExtPict": "Extended_Pictographic", "Extender": "Extender",
        "Ext": "Extender", "Grapheme_Base": "Grapheme_Base", "Gr_Base": "Grapheme_Base",
        "Grapheme_Extend": "Grapheme_Extend", "Gr_Ext": "Grapheme_Extend", "Hex_Digit": "Hex_Digit",
        "Hex": "Hex_Digit", "ID_Continue": "ID_Continue", "IDC": "ID_Continue", "ID_Start": "ID_Start",
        "IDS": "ID_Start", "Ideographic": "Ideographic", "Ideo": "Ideographic",
        "IDS_Binary_Operator": "IDS_Binary_Operator", "IDSB": "IDS_Binary_Operator",
        "IDS_Trinary_Operator": "IDS_Trinary_Operator", "IDST": "IDS_Trinary_Operator",
        "Join_Control": "Join_Control", "Join_C": "Join_Control",
        "Logical_Order_Exception": "Logical_Order_Exception", "LOE": "Logical_Order_Exception",
        "Lowercase": "Lowercase", "Lower": "Lowercase", "Math": "Math",
        "Noncharacter_Code_Point": "Noncharacter_Code_Point", "NChar": "Noncharacter_Code_Point",
        "Pattern_Syntax": "Pattern_Syntax", "Pat_Syn": "Pattern_Syntax", "Pattern_White_Space": "Pattern_White_Space",
        "Pat_WS": "Pattern_White_Space", "Quotation_Mark": "Quotation_Mark", "QMark": "Quotation_Mark",
        "Radical": "Radical", "Regional_Indicator": "Regional_Indicator", "RI": "Regional_Indicator",
        "Sentence_Terminal": "Sentence_Terminal", "STerm": "Sentence_Terminal", "Soft_Dotted": "Soft_Dotted",
        "SD": "Soft_Dotted", "Terminal_Punctuation": "Terminal_Punctuation", "Term": "Terminal_Punctuation",
        "Unified_Ideograph": "Unified_Ideograph", "UIdeo": "Unified_Ideograph", "Uppercase": "Uppercase",
        "Upper": "Uppercase", "Variation_Selector": "Variation_Selector", "VS": "Variation_Selector",
        "White_Space": "White_Space", "WSpace": "White_Space", "space": "White_Space", "XID_Continue": "XID_Continue",
        "XIDC": "XID_Continue", "XID_Start": "XID_Start", "XIDS": "XID_Start",
    ]
}
