import APIProbeShared

/// A deterministic random number generator (SplitMix64): the same seed gives the same sequence on every
/// platform and every run.

/// One recipe of the built-in catalog.
struct CatalogRecipe: Sendable {
    var id: Int
    var title: String
    var publisher: String
    var publisherURL: String
    var sourceURL: String
    var imageURL: String
    var f2fURL: String
    /// Hundredths of a point, so the value prints exactly (9999 is 99.99).
    var socialRankHundredths: Int
    var cookTimeMinutes: Int
    var ingredients: [String]

    var socialRank: Double { Double(socialRankHundredths) / 100 }
}

/// The built-in recipes: a few hundred, generated from seeded lists, the same on every run.
struct RecipeCatalog: Sendable {
    let recipes: [CatalogRecipe]
    private let byID: [String: Int]

    static let standard = RecipeCatalog(seed: 2_026, count: 360)

    init(seed: UInt64, count: Int) {
        var random = SeededGenerator(seed: seed)
        var recipes: [CatalogRecipe] = []
        var seenTitles: Set<String> = []
        var id = 35_382
        while recipes.count < count {
            let style = Self.styles[random.nextIndex(Self.styles.count)]
            let dish = Self.dishes[random.nextIndex(Self.dishes.count)]
            let title = "\(style) \(dish.name)"
            guard seenTitles.insert(title).inserted else { continue }
            let publisher = Self.publishers[random.nextIndex(Self.publishers.count)]
            let slug = Self.slug(title)
            var ingredients = dish.ingredients.map { "\(Self.amounts[random.nextIndex(Self.amounts.count)]) \($0)" }
            for _ in 0..<(2 + random.nextIndex(3)) {
                let extra = Self.pantry[random.nextIndex(Self.pantry.count)]
                if !ingredients.contains(where: { $0.hasSuffix(extra) }) { ingredients.append(extra) }
            }
            // Ranks cluster near the top, as on the real site; one in eight is a perfect 100.
            let rank = random.nextIndex(8) == 0 ? 10_000 : 5_000 + Int(random.nextUnit() * random.nextUnit() * 5_000)
            recipes.append(
                CatalogRecipe(
                    id: id,
                    title: title,
                    publisher: publisher.name,
                    publisherURL: "https://\(publisher.host)",
                    sourceURL: "https://\(publisher.host)/recipes/\(slug)",
                    imageURL: "https://static.food2fork.example/\(id)_\(slug).jpg",
                    f2fURL: "https://food2fork.example/view/\(id)",
                    socialRankHundredths: rank,
                    cookTimeMinutes: 10 + 5 * random.nextIndex(22),
                    ingredients: ingredients
                )
            )
            id += 1 + random.nextIndex(97)
        }
        self.recipes = recipes
        self.byID = Dictionary(uniqueKeysWithValues: recipes.enumerated().map { (String($0.element.id), $0.offset) })
    }

    /// The recipe with this id (`"35382"`), or `nil`.
    func recipe(id: String) -> CatalogRecipe? { byID[id].map { recipes[$0] } }

    /// Recipes whose title, publisher or ingredients contain every word of `query` (case-insensitive),
    /// best social rank first, then by id. An empty query matches every recipe.
    func search(_ query: String) -> [CatalogRecipe] {
        let words = query.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "+" })
        let matches = recipes.filter { recipe in
            let text = ([recipe.title, recipe.publisher] + recipe.ingredients).joined(separator: " ").lowercased()
            return words.allSatisfy { text.contains($0) }
        }
        return matches.sorted {
            $0.socialRankHundredths != $1.socialRankHundredths
                ? $0.socialRankHundredths > $1.socialRankHundredths : $0.id < $1.id
        }
    }

    private static func slug(_ title: String) -> String {
        String(title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }

    private static let publishers: [(name: String, host: String)] = [
        ("The Pioneer Woman", "thepioneerwoman.example"),
        ("Closet Cooking", "closetcooking.example"),
        ("Two Peas and Their Pod", "twopeasandtheirpod.example"),
        ("Simply Recipes", "simplyrecipes.example"),
        ("101 Cookbooks", "101cookbooks.example"),
        ("My Baking Addiction", "mybakingaddiction.example"),
        ("All Recipes", "allrecipes.example"),
        ("Jamie Oliver", "jamieoliver.example"),
        ("BBC Good Food", "bbcgoodfood.example"),
        ("Bon Appetit", "bonappetit.example"),
        ("Serious Eats", "seriouseats.example"),
        ("Smitten Kitchen", "smittenkitchen.example"),
    ]

    private static let styles = [
        "Classic", "Easy", "Spicy", "Creamy", "Roasted", "Grilled", "Slow Cooker", "Weeknight", "Crispy", "Smoky",
        "Lemon", "Garlic", "Honey Glazed", "Herbed", "Rustic", "Vegan", "Cheesy", "Thai-Style", "Mexican", "Tuscan",
        "One-Pan", "Sheet Pan", "Baked", "Homemade", "Chipotle",
    ]

    private static let dishes: [(name: String, ingredients: [String])] = [
        ("Chicken Tacos", ["chicken thighs", "corn tortillas", "lime", "cilantro", "red onion"]),
        ("Chicken Curry", ["chicken breast", "coconut milk", "curry paste", "onion", "rice"]),
        ("Pulled Pork Sandwiches", ["pork shoulder", "barbecue sauce", "brioche buns", "coleslaw"]),
        ("Margherita Pizza", ["pizza dough", "tomato sauce", "fresh mozzarella", "basil"]),
        ("Spaghetti Carbonara", ["spaghetti", "guanciale", "eggs", "pecorino romano", "black pepper"]),
        ("Beef Chili", ["ground beef", "kidney beans", "chili powder", "crushed tomatoes", "onion"]),
        ("Salmon Fillets", ["salmon fillets", "lemon", "dill", "butter"]),
        ("Shrimp Stir Fry", ["shrimp", "broccoli", "soy sauce", "ginger", "garlic"]),
        ("Mushroom Risotto", ["arborio rice", "mushrooms", "vegetable stock", "parmesan", "white wine"]),
        ("Black Bean Burgers", ["black beans", "breadcrumbs", "cumin", "burger buns"]),
        ("Chocolate Chip Cookies", ["flour", "butter", "brown sugar", "chocolate chips", "eggs"]),
        ("Banana Bread", ["ripe bananas", "flour", "sugar", "butter", "baking soda"]),
        ("Caesar Salad", ["romaine lettuce", "croutons", "parmesan", "anchovies", "lemon"]),
        ("Tomato Soup", ["tomatoes", "onion", "vegetable stock", "cream", "basil"]),
        ("Lasagna", ["lasagna noodles", "ricotta", "ground beef", "marinara", "mozzarella"]),
        ("Pad Thai", ["rice noodles", "shrimp", "peanuts", "bean sprouts", "tamarind"]),
        ("Falafel Wraps", ["chickpeas", "parsley", "tahini", "pita bread"]),
        ("Pancakes", ["flour", "milk", "eggs", "baking powder", "maple syrup"]),
        ("Mac and Cheese", ["macaroni", "cheddar", "milk", "butter", "flour"]),
        ("Guacamole", ["avocados", "lime", "jalapeno", "red onion", "cilantro"]),
        ("Pork Chops", ["pork chops", "apples", "thyme", "butter"]),
        ("Vegetable Lasagna", ["lasagna noodles", "zucchini", "spinach", "ricotta", "marinara"]),
        ("Fish Tacos", ["white fish", "cabbage", "corn tortillas", "lime crema"]),
        ("Chicken Noodle Soup", ["chicken", "egg noodles", "carrots", "celery", "chicken stock"]),
        ("Apple Pie", ["apples", "pie crust", "cinnamon", "sugar", "butter"]),
        ("Beef Stew", ["beef chuck", "potatoes", "carrots", "red wine", "beef stock"]),
        ("Quinoa Bowl", ["quinoa", "sweet potato", "kale", "chickpeas", "tahini"]),
        ("Meatballs", ["ground beef", "breadcrumbs", "parmesan", "eggs", "marinara"]),
        ("Fried Rice", ["rice", "eggs", "peas", "soy sauce", "scallions"]),
        ("Brownies", ["dark chocolate", "butter", "sugar", "eggs", "cocoa powder"]),
    ]

    private static let amounts = [
        "1 cup", "2 cups", "1/2 cup", "1 tablespoon", "2 tablespoons", "1 teaspoon", "1 pound", "2", "3",
        "a handful of",
    ]

    private static let pantry = [
        "salt", "black pepper", "olive oil", "garlic", "red pepper flakes", "fresh parsley", "paprika", "oregano",
    ]
}
