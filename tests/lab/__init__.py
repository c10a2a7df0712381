"""Real OpenZFS lab: VM images, the live test against zmon, zfs-fuse."""
