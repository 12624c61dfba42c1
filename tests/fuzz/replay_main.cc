// main() for the fuzz targets outside --config=fuzz: runs
// LLVMFuzzerTestOneInput once on each file named on the command line (folders
// are walked one level), so the seed corpora and every regression input are
// replayed by an ordinary test, under ASan/UBSan too.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// False when the file cannot be read: replaying it as empty input would check nothing.
bool RunFile(const std::string& path, int& count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  ++count;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    std::string path = argv[i];
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (!RunFile(path, count)) return 1;
      continue;
    }
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) {
      std::fprintf(stderr, "cannot list %s\n", path.c_str());
      return 1;
    }
    bool ok = true;
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string child = path + "/" + name;
      if (stat(child.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ok = RunFile(child, count) && ok;
    }
    closedir(dir);
    if (!ok) return 1;
  }
  std::printf("replayed %d inputs\n", count);
  // No input at all (a data glob that matched nothing) would be a pass that replayed nothing.
  if (count == 0) {
    std::fprintf(stderr, "no input to replay\n");
    return 1;
  }
  return 0;
}
