# sluice_add_test(NAME n (SOURCES s... [EXE e] | TARGET t) [RANKS r] [TIMEOUT sec]
#                 [ARGS a...] [ENV K=V...] [LABELS l...] [LAUNCHER_ARGS a...] [NO_OFI why])
#
# Registers one ctest test. With SOURCES it also builds the executable (linked
# against the Sluice library and the test helpers); with TARGET it reuses an
# executable built by an earlier call (one source, several variants); EXE
# names the executable built from SOURCES (default: the test's NAME).  With
# RANKS the test runs under build/bin/sluicerun with --timeout, so a hang
# becomes a failure with a message instead of a stuck CI job.
# SLUICE_TEST_TIMEOUT_MULTIPLIER (environment, at configure time) stretches
# every timeout for sanitizer builds.
#
# The ofi twins: when the libfabric transport is built, every test of the
# Portals, p2p, MPI and collective suites with 2 ranks or more also runs as
# n_ofi (SLUICE_WIRE=ofi: libfabric between every pair of ranks) and as
# n_vhosts (sluicerun --hosts: half the ranks on virtual host a, the rest
# on b, so shared memory within each and libfabric between them), labels
# ofi and ofi_twin (scripts/test.sh leaves the twins out of the sanitizer
# runs: they would double those runs' time).  NO_OFI gives the reason a test has no twins (it checks a
# shared-memory mechanism itself); a string, so the reason is in the file.
set(SLUICE_TEST_TIMEOUT_MULTIPLIER "$ENV{SLUICE_TEST_TIMEOUT_MULTIPLIER}")
if(NOT SLUICE_TEST_TIMEOUT_MULTIPLIER)
  if(SLUICE_SANITIZE)
    set(SLUICE_TEST_TIMEOUT_MULTIPLIER 3)
  else()
    set(SLUICE_TEST_TIMEOUT_MULTIPLIER 1)
  endif()
endif()

function(sluice_add_test)
  cmake_parse_arguments(T "" "NAME;TARGET;RANKS;TIMEOUT;EXE;NO_OFI"
                        "SOURCES;ARGS;ENV;LABELS;LAUNCHER_ARGS;LIBS" ${ARGN})
  if(NOT T_NAME)
    message(FATAL_ERROR "sluice_add_test: NAME is required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  math(EXPR timeout "${T_TIMEOUT} * ${SLUICE_TEST_TIMEOUT_MULTIPLIER}")
  if(T_SOURCES)
    set(exe ${T_NAME})
    if(T_EXE)
      set(exe ${T_EXE})
    endif()
    add_executable(${exe} ${T_SOURCES})
    target_link_libraries(${exe} PRIVATE sluice_testlib sluice ${T_LIBS})
    set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  elseif(T_TARGET)
    set(exe ${T_TARGET})
  else()
    message(FATAL_ERROR "sluice_add_test(${T_NAME}): SOURCES or TARGET is required")
  endif()
  if(T_RANKS)
    # sluicerun's own timeout fires first, so the job is torn down cleanly.
    # Tests run unbound: ctest runs several jobs at once, and bound ranks of
    # two jobs on one CPU do not yield to each other (the wire yields only
    # when a rank is not bound), which slowed a TSan run past its timeout.
    math(EXPR job_timeout "${timeout} - 5")
    add_test(NAME ${T_NAME}
             COMMAND $<TARGET_FILE:sluicerun> -n ${T_RANKS} --timeout ${job_timeout} --bind-to none
                     ${T_LAUNCHER_ARGS} $<TARGET_FILE:${exe}> ${T_ARGS})
    list(APPEND T_LABELS multirank)
  else()
    add_test(NAME ${T_NAME} COMMAND $<TARGET_FILE:${exe}> ${T_ARGS})
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${timeout} LABELS "${T_LABELS}")
  if(T_ENV)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${T_ENV}")
  endif()
  sluice_ofi_twins()
endfunction()

# Called by sluice_add_test with its variables (T_*, exe, timeout).
macro(sluice_ofi_twins)
  set(ofi_suite OFF)
  foreach(l ptl p2p mpi coll)
    if(l IN_LIST T_LABELS)
      set(ofi_suite ON)
    endif()
  endforeach()
  foreach(l abi bench scale mpich hydra pmix slurm)
    if(l IN_LIST T_LABELS)
      set(ofi_suite OFF)
    endif()
  endforeach()
  if(SLUICE_HAVE_OFI AND ofi_suite AND T_RANKS AND T_RANKS GREATER 1 AND NOT T_NO_OFI)
    math(EXPR hosts_a "(${T_RANKS} + 1) / 2")
    math(EXPR hosts_b "${T_RANKS} - ${hosts_a}")
    math(EXPR ofi_timeout "${timeout} * 2")
    math(EXPR ofi_job_timeout "${ofi_timeout} - 5")
    foreach(twin ofi vhosts)
      if(twin STREQUAL "ofi")
        set(twin_env ${T_ENV} SLUICE_WIRE=ofi)
        set(twin_args "")
      else()
        set(twin_env ${T_ENV})
        set(twin_args --hosts a:${hosts_a},b:${hosts_b})
      endif()
      add_test(NAME ${T_NAME}_${twin}
               COMMAND $<TARGET_FILE:sluicerun> -n ${T_RANKS} --timeout ${ofi_job_timeout}
                       --bind-to none ${twin_args} ${T_LAUNCHER_ARGS} $<TARGET_FILE:${exe}>
                       ${T_ARGS})
      set_tests_properties(${T_NAME}_${twin} PROPERTIES TIMEOUT ${ofi_timeout}
                           LABELS "ofi;ofi_twin;multirank")
      if(twin_env)
        set_tests_properties(${T_NAME}_${twin} PROPERTIES ENVIRONMENT "${twin_env}")
      endif()
    endforeach()
  endif()
endmacro()

# sluice_add_script_test(NAME n SOURCE s.c LIBS l... SCRIPT driver.sh TIMEOUT sec LABELS l...)
#
# A test program started by a driver script instead of directly (kills,
# exits, output checks): builds s.c into the tests directory, linked against
# LIBS, and runs "sh driver.sh <sluicerun> <program>".
function(sluice_add_script_test)
  cmake_parse_arguments(T "" "NAME;SOURCE;SCRIPT;TIMEOUT" "LIBS;LABELS" ${ARGN})
  get_filename_component(exe ${T_SOURCE} NAME_WE)
  add_executable(${exe} ${T_SOURCE})
  target_link_libraries(${exe} PRIVATE ${T_LIBS})
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${T_NAME}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/${T_SCRIPT} $<TARGET_FILE:sluicerun>
                   $<TARGET_FILE:${exe}>)
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS};multirank" TIMEOUT ${T_TIMEOUT})
endfunction()
