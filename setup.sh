#!/bin/sh
# Set up this machine as a Beowulf Netlab testbed (Debian 12, Ubuntu 22.04/24.04).
# Installs Ansible, then runs playbooks/setup.yml against localhost. Run as root
# (or with sudo). Safe to run again.
set -eu
cd "$(dirname "$0")"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: run as root: sudo ./setup.sh" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
if ! command -v ansible-playbook >/dev/null 2>&1; then
  apt-get update -q
  apt-get install -y -q ansible-core
fi
ansible-playbook -i playbooks/inventory.ini playbooks/setup.yml
