#include <voxhash/backend.hpp>
#include <cstdio>
int main() { std::printf("%s\n", voxhash::describe_device(voxhash::default_backend()).c_str()); }
