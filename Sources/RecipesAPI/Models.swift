/// One recipe as the search endpoint lists it.
///
/// Every field is always present in the API's responses; `social_rank` is a number from 0 to 100.
///
/// ```json
/// {"publisher": "Closet Cooking", "f2f_url": "https://food2fork.example/view/35382", "title": "Jalapeno Popper Grilled Cheese",
///  "source_url": "https://…", "recipe_id": "35382", "image_url": "https://…", "social_rank": 100.0, "publisher_url": "https://…"}
/// ```
public struct Recipe: Codable, Sendable, Hashable, Identifiable {
    public var publisher: String
    public var f2fURL: String
    public var title: String
    public var sourceURL: String
    public var recipeID: String
    public var imageURL: String
    public var socialRank: Double
    public var publisherURL: String

    public var id: String { recipeID }

    public init(
        publisher: String, f2fURL: String, title: String, sourceURL: String, recipeID: String, imageURL: String,
        socialRank: Double, publisherURL: String
    ) {
        self.publisher = publisher
        self.f2fURL = f2fURL
        self.title = title
        self.sourceURL = sourceURL
        self.recipeID = recipeID
        self.imageURL = imageURL
        self.socialRank = socialRank
        self.publisherURL = publisherURL
    }

    enum CodingKeys: String, CodingKey {
        case publisher
        case f2fURL = "f2f_url"
        case title
        case sourceURL = "source_url"
        case recipeID = "recipe_id"
        case imageURL = "image_url"
        case socialRank = "social_rank"
        case publisherURL = "publisher_url"
    }
}

/// One recipe as the get endpoint returns it: the listing's fields and its ingredients.
public struct RecipeDetail: Codable, Sendable, Hashable, Identifiable {
    public var publisher: String
    public var f2fURL: String
    public var title: String
    public var sourceURL: String
    public var recipeID: String
    public var imageURL: String
    public var socialRank: Double
    public var ingredients: [String]
    public var publisherURL: String

    public var id: String { recipeID }

    /// The recipe without its ingredients, as a search lists it.
    public var summary: Recipe {
        Recipe(
            publisher: publisher, f2fURL: f2fURL, title: title, sourceURL: sourceURL, recipeID: recipeID,
            imageURL: imageURL, socialRank: socialRank, publisherURL: publisherURL)
    }

    public init(_ recipe: Recipe, ingredients: [String]) {
        publisher = recipe.publisher
        f2fURL = recipe.f2fURL
        title = recipe.title
        sourceURL = recipe.sourceURL
        recipeID = recipe.recipeID
        imageURL = recipe.imageURL
        socialRank = recipe.socialRank
        self.ingredients = ingredients
        publisherURL = recipe.publisherURL
    }

    enum CodingKeys: String, CodingKey {
        case publisher
        case f2fURL = "f2f_url"
        case title
        case sourceURL = "source_url"
        case recipeID = "recipe_id"
        case imageURL = "image_url"
        case socialRank = "social_rank"
        case ingredients
        case publisherURL = "publisher_url"
    }
}

/// The body of `GET /api/search?q=&page=`: one page (up to 30) of matching recipes; `count` is the number
/// on this page.
public struct SearchResponse: Codable, Sendable, Hashable {
    public var count: Int
    public var recipes: [Recipe]

    public init(count: Int, recipes: [Recipe]) {
        self.count = count
        self.recipes = recipes
    }
}

/// The body of `GET /api/get?rId=`.
public struct RecipeResponse: Codable, Sendable, Hashable {
    public var recipe: RecipeDetail

    public init(recipe: RecipeDetail) {
        self.recipe = recipe
    }
}

/// The body of every error response: `{"error": {"message": "missing query parameter q"}}`.
public struct APIErrorResponse: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        public var message: String
    }

    public var error: Detail
}
