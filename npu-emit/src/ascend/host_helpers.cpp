static bool ReadFile(const char *path, void *host, size_t bytes) {
    FILE *file = std::fopen(path, "rb");
    size_t read = file != nullptr ? std::fread(host, 1, bytes, file) : 0;
    if (file != nullptr) {
        std::fclose(file);
    }
    if (read != bytes) {
        std::fprintf(stderr, "%s: expected %zu bytes, read %zu\n", path, bytes, read);
        return false;
    }
    return true;
}

static void FileToDevice(const char *path, uint8_t *device, size_t bytes) {
    void *host = nullptr;
    aclrtMallocHost(&host, bytes);
    ReadFile(path, host, bytes);
    aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtFreeHost(host);
}

static std::vector<uint8_t> DeviceToFile(const uint8_t *device, const char *path, size_t bytes) {
    std::vector<uint8_t> host(bytes);
    aclrtMemcpy(host.data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    FILE *file = std::fopen(path, "wb");
    if (file != nullptr) {
        std::fwrite(host.data(), 1, bytes, file);
        std::fclose(file);
    }
    return host;
}

enum class Kind { Half, BFloat16, Float, Int8, Uint8, Int16, Uint16, Int32, Uint32 };

// The bytes of one element of `kind`.
static size_t ElementBytes(Kind kind) {
    switch (kind) {
    case Kind::Int8:
    case Kind::Uint8:
        return 1;
    case Kind::Half:
    case Kind::BFloat16:
    case Kind::Int16:
    case Kind::Uint16:
        return 2;
    default:
        return 4;
    }
}

// An element of `kind` as a double (exact for every kind).
static double Element(const uint8_t *at, Kind kind) {
    switch (kind) {
    case Kind::Half: {
        aclFloat16 bits;
        std::memcpy(&bits, at, 2);
        return aclFloat16ToFloat(bits);
    }
    case Kind::BFloat16: {
        // bfloat16 is the high half of a float.
        uint32_t word = 0;
        std::memcpy(reinterpret_cast<uint8_t *>(&word) + 2, at, 2);
        float value;
        std::memcpy(&value, &word, 4);
        return value;
    }
    case Kind::Float: {
        float value;
        std::memcpy(&value, at, 4);
        return value;
    }
    case Kind::Int8:
        return double(int8_t(*at));
    case Kind::Uint8:
        return double(*at);
    case Kind::Int16: {
        int16_t value;
        std::memcpy(&value, at, 2);
        return value;
    }
    case Kind::Uint16: {
        uint16_t value;
        std::memcpy(&value, at, 2);
        return value;
    }
    case Kind::Uint32: {
        uint32_t value;
        std::memcpy(&value, at, 4);
        return value;
    }
    default: {
        int32_t value;
        std::memcpy(&value, at, 4);
        return value;
    }
    }
}

// Whether every element is within `tolerance * (1 + |golden|)` of the golden one (a NaN
// matches a NaN); the first miss and the count of misses are printed.
static bool Matches(const char *name, const std::vector<uint8_t> &got, const char *golden_path, Kind kind,
                    double tolerance) {
    std::vector<uint8_t> golden(got.size());
    if (!ReadFile(golden_path, golden.data(), golden.size())) {
        return false;
    }
    size_t size = ElementBytes(kind);
    size_t misses = 0;
    for (size_t i = 0; i < got.size() / size; ++i) {
        double g = Element(&got[i * size], kind), w = Element(&golden[i * size], kind);
        bool same = g == w || (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= tolerance * (1.0 + std::fabs(w));
        if (!same && misses++ == 0) {
            std::printf("%s[%zu]: expected %.9g, got %.9g\n", name, i, w, g);
        }
    }
    if (misses > 0) {
        std::printf("%s: %zu of %zu elements differ\n", name, misses, got.size() / size);
    }
    return misses == 0;
}
