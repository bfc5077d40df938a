#!/usr/bin/env bash
# A sweep spread over a Slurm cluster as an array job: task i runs shard i of N.
#   sbatch scenarios/planning/slurm-sweep.sh
#   # when every task is done:
#   eksim sweep merge results/lab000-shard-*.jsonl --out lab000.jsonl
# A requeued or resubmitted task resumes (--resume) and keeps the runs it had finished.
#SBATCH --job-name=eksim-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=results/slurm-%A_%a.out
#SBATCH --requeue
set -euo pipefail

EKSIM=${EKSIM:-build/eksim}
PLAN=${PLAN:-scenarios/planning/lab000-sweep.yaml}
SHARDS=${SLURM_ARRAY_TASK_COUNT:-4}
INDEX=${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array}
mkdir -p results
exec "$EKSIM" sweep "$PLAN" --shard "$INDEX/$SHARDS" --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume --quiet \
  --out "results/lab000-shard-$INDEX.jsonl"
