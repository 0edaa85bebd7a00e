# The viewer's third-party dependencies, all from Debian packages (nothing is downloaded):
# GLFW 3.3, GLM, EGL (libglvnd), Dear ImGui 1.86 (libimgui.a: core and backends) and stb.
# Static stb and ImGui keep the binary runnable where only the GL runtime libraries exist.
find_package(glfw3 3.3 REQUIRED)
find_package(glm CONFIG REQUIRED)
find_package(OpenGL REQUIRED COMPONENTS EGL)

find_path(VOXHASH_IMGUI_INCLUDE_DIR imgui.h PATH_SUFFIXES imgui REQUIRED)
find_library(VOXHASH_IMGUI_LIBRARY NAMES libimgui.a imgui REQUIRED)
find_path(VOXHASH_STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)
find_library(VOXHASH_STB_LIBRARY NAMES libstb.a stb REQUIRED)

add_library(voxhash_stb INTERFACE)
target_include_directories(voxhash_stb SYSTEM INTERFACE ${VOXHASH_STB_INCLUDE_DIR})
target_link_libraries(voxhash_stb INTERFACE ${VOXHASH_STB_LIBRARY})

# libimgui.a needs stb after it (its font rasterizer and rect packer live in libstb).
add_library(voxhash_imgui INTERFACE)
target_include_directories(voxhash_imgui SYSTEM INTERFACE ${VOXHASH_IMGUI_INCLUDE_DIR})
target_link_libraries(voxhash_imgui INTERFACE ${VOXHASH_IMGUI_LIBRARY} voxhash_stb ${CMAKE_DL_LIBS})
