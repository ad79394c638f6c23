# Installs the Data Explorer's npm packages from its lockfile (npm ci), unless they were installed
# from this very lockfile already: npm writes node_modules/.package-lock.json at every install, so
# when that file is newer than package.json and package-lock.json, nothing is done. A fresh build
# directory beside installed packages (the Dockerfile installs them in a layer of their own, with
# the CA certificates a proxy may need) then never installs them a second time.
#   cmake -DDIR=<explorer folder> -DNPM=<npm> -P npm_ci.cmake
set(stamp "${DIR}/node_modules/.package-lock.json")
if(EXISTS "${stamp}"
   AND NOT "${DIR}/package-lock.json" IS_NEWER_THAN "${stamp}"
   AND NOT "${DIR}/package.json" IS_NEWER_THAN "${stamp}")
  message(STATUS "The Data Explorer's npm packages are installed from this package-lock.json already")
  file(TOUCH "${stamp}")  # this step's output, newer than its inputs: done until they change
  return()
endif()
execute_process(COMMAND "${NPM}" ci --ignore-scripts --no-audit --no-fund --loglevel=error
                WORKING_DIRECTORY "${DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npm ci in ${DIR} failed (exit ${rc})")
endif()
