# Writes OUT (from IN) naming the commit that this build's results name, at every build rather than
# only when CMake configures, so that a rebuild after a commit, or of a tree with uncommitted
# changes, does not stamp its results with an older commit. GEMMLAB_COMMIT in the environment wins
# (a copied tree, a tarball); else git's HEAD, with "+dirty" where tracked files differ from it.
# configure_file rewrites OUT only when its text changes, so an unchanged commit recompiles nothing.
#   cmake -DSOURCE_DIR=... -DIN=commit.cpp.in -DOUT=commit.cpp -P commit.cmake
if(DEFINED ENV{GEMMLAB_COMMIT} AND NOT "$ENV{GEMMLAB_COMMIT}" STREQUAL "")
  set(GEMMLAB_GIT_COMMIT $ENV{GEMMLAB_COMMIT})
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE GEMMLAB_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(GEMMLAB_GIT_COMMIT)
    execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE changed
                    OUTPUT_QUIET ERROR_QUIET)
    if(changed EQUAL 1)
      string(APPEND GEMMLAB_GIT_COMMIT "+dirty")
    endif()
  endif()
endif()
if(NOT GEMMLAB_GIT_COMMIT)
  set(GEMMLAB_GIT_COMMIT unknown)
endif()
configure_file(${IN} ${OUT} @ONLY)
