extension DemoRun {
    /// The recipes API's OpenAPI description, byte for byte `openapi/recipes.yaml` (a test compares them), so the
    /// demo can check the drifted fixtures against it wherever the binary runs.
    static let recipesSpec = #"""
        openapi: 3.0.3
        info:
          title: Recipes API
          version: 1.0.0
          description: >
            Search recipes and read one recipe with its ingredients. Every error answer is JSON:
            {"error": {"message": "..."}}.
        servers:
          - url: https://recipes.example.com
            description: Production
        tags:
          - name: recipes
          - name: operations
        paths:
          /api/search:
            get:
              operationId: searchRecipes
              summary: Search recipes by keyword, 30 a page.
              tags: [recipes]
              parameters:
                - name: q
                  in: query
                  required: true
                  description: Words to look for in titles and ingredients.
                  example: chicken
                  schema:
                    type: string
                    minLength: 1
                - name: page
                  in: query
                  required: false
                  description: The page, from 1.
                  schema:
                    type: integer
                    minimum: 1
                    default: 1
              responses:
                "200":
                  description: A page of matching recipes (empty when nothing matches).
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/SearchPage"
                "400":
                  $ref: "#/components/responses/BadRequest"
                "503":
                  $ref: "#/components/responses/Unavailable"
          /api/get:
            get:
              operationId: getRecipe
              summary: One recipe with its ingredients.
              tags: [recipes]
              parameters:
                - name: rId
                  in: query
                  required: true
                  description: The recipe's id, as `recipe_id` in search results.
                  example: "35382"
                  schema:
                    type: string
              responses:
                "200":
                  description: The recipe.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [recipe]
                        properties:
                          recipe:
                            $ref: "#/components/schemas/Recipe"
                "400":
                  $ref: "#/components/responses/BadRequest"
                "404":
                  description: No recipe has this id.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/Error"
                "503":
                  $ref: "#/components/responses/Unavailable"
          /api/health:
            get:
              operationId: health
              summary: Whether the service is up.
              tags: [operations]
              responses:
                "200":
                  description: Up.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [status]
                        properties:
                          status:
                            type: string
                            enum: [ok]
        components:
          schemas:
            RecipeSummary:
              type: object
              required: [f2f_url, image_url, publisher, publisher_url, recipe_id, social_rank, source_url, title]
              properties:
                recipe_id:
                  type: string
                  example: "35382"
                title:
                  type: string
                publisher:
                  type: string
                publisher_url:
                  type: string
                  format: uri
                source_url:
                  type: string
                  format: uri
                f2f_url:
                  type: string
                  format: uri
                image_url:
                  type: string
                  format: uri
                social_rank:
                  type: number
                  format: double
                  minimum: 0
                  maximum: 100
            Recipe:
              allOf:
                - $ref: "#/components/schemas/RecipeSummary"
                - type: object
                  required: [ingredients]
                  properties:
                    ingredients:
                      type: array
                      items:
                        type: string
            SearchPage:
              type: object
              required: [count, recipes]
              properties:
                count:
                  type: integer
                  description: How many recipes are on this page.
                  minimum: 0
                recipes:
                  type: array
                  items:
                    $ref: "#/components/schemas/RecipeSummary"
            Error:
              type: object
              required: [error]
              properties:
                error:
                  type: object
                  required: [message]
                  properties:
                    message:
                      type: string
          responses:
            BadRequest:
              description: A parameter is missing or malformed.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Error"
            Unavailable:
              description: The service is overloaded; retry after the Retry-After header's seconds.
              headers:
                Retry-After:
                  schema:
                    type: integer
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Error"

        """#
}
