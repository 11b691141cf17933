#!/bin/sh
# Harness self-test: a suite with one passing and one failing case; the
# runner must count exactly one failure from it.
echo "KTAP version 1"
echo "1..2"
echo "ok 1 harness_control_pass"
echo "not ok 2 harness_deliberate_fail"
