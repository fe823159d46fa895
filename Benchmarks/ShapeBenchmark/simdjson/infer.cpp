// A naive schema inferrer on simdjson: parses each file, walks it, and records for each path (array items as
// "[]") the JSON types seen and in how many documents it was present. What apiprobe's inference does at the least,
// without formats, enums, integer ranges or required-key bookkeeping; the reference of ShapeBenchmark --cli.
//
//   g++ -O3 -std=c++17 infer.cpp -lsimdjson -o infer && ./infer FILE...
//
// Prints the number of paths and the seconds spent reading, parsing and walking (after start-up).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <simdjson.h>

struct PathInfo { unsigned types = 0; size_t present = 0; size_t lastDocument = SIZE_MAX; };
static std::unordered_map<std::string, PathInfo> paths;
static size_t documentIndex = 0;

static void walk(simdjson::dom::element value, std::string &path) {
    PathInfo &info = paths[path];
    info.types |= 1u << (unsigned(value.type()) % 32);
    if (info.lastDocument != documentIndex) { info.lastDocument = documentIndex; info.present++; }
    switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
        // Kept in a variable: a range over the temporary result would outlive it.
        simdjson::dom::object object = value.get_object().value_unsafe();
        for (auto field : object) {
            size_t length = path.size();
            path += '/';
            path.append(field.key.data(), field.key.size());
            walk(field.value, path);
            path.resize(length);
        }
        break;
    }
    case simdjson::dom::element_type::ARRAY: {
        size_t length = path.size();
        path += "/[]";
        simdjson::dom::array array = value.get_array().value_unsafe();
        for (auto item : array) walk(item, path);
        path.resize(length);
        break;
    }
    default: break;
    }
}

int main(int argc, char **argv) {
    simdjson::dom::parser parser;
    auto start = std::chrono::steady_clock::now();
    std::string path;
    for (int i = 1; i < argc; i++) {
        simdjson::padded_string json;
        if (simdjson::padded_string::load(argv[i]).get(json)) { std::fprintf(stderr, "%s: unreadable\n", argv[i]); return 2; }
        simdjson::dom::element root;
        if (parser.parse(json).get(root)) { std::fprintf(stderr, "%s: not JSON\n", argv[i]); return 2; }
        documentIndex = i;
        path.clear();
        walk(root, path);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%zu paths, %.4f s\n", paths.size(), seconds);
    return 0;
}
