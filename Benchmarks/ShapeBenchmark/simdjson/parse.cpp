// The floor under any schema inferrer that reads every byte: simdjson (Debian's libsimdjson-dev) parsing each file
// given on the command line into its DOM, and nothing else. Built and run by ShapeBenchmark (--cli).
//
//   g++ -O3 -std=c++17 parse.cpp -lsimdjson -o parse && ./parse FILE...
//
// Prints the documents parsed and the seconds spent reading and parsing (after start-up).
#include <chrono>
#include <cstdio>
#include <simdjson.h>

int main(int argc, char **argv) {
    simdjson::dom::parser parser;
    auto start = std::chrono::steady_clock::now();
    size_t documents = 0, bytes = 0;
    for (int i = 1; i < argc; i++) {
        simdjson::padded_string json;
        if (simdjson::padded_string::load(argv[i]).get(json)) { std::fprintf(stderr, "%s: unreadable\n", argv[i]); return 2; }
        simdjson::dom::element root;
        if (parser.parse(json).get(root)) { std::fprintf(stderr, "%s: not JSON\n", argv[i]); return 2; }
        documents++;
        bytes += json.size();
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%zu documents, %zu bytes, %.4f s\n", documents, bytes, seconds);
    return 0;
}
