# Nested Performance + Weighted: clients go to the closest region (Performance), and inside each region
# the traffic is split by weight between two servers (Weighted child profiles).
#
#   app.tm.internal   Performance  -> eu (nested: app-eu, West Europe) | us (nested: app-us, East US)
#   app-eu            Weighted     -> eu-1 (weight 3) 192.0.2.11, eu-2 (weight 1) 192.0.2.12
#   app-us            Weighted     -> us-1 (weight 1) 198.51.100.21, us-2 (weight 1) 198.51.100.22
#
# README.md in this directory walks through serve, install, init, apply and dig.

terraform {
  required_providers {
    tmkit = { source = "tmkit/tmkit" }
  }
}

# server and token default to TMKIT_SERVER and TMKIT_TOKEN; the stack defaults to "terraform".
provider "tmkit" {}

locals {
  regions = {
    eu = { location = "West Europe", servers = { "eu-1" = { target = "192.0.2.11", weight = 3 }, "eu-2" = { target = "192.0.2.12", weight = 1 } } }
    us = { location = "East US", servers = { "us-1" = { target = "198.51.100.21", weight = 1 }, "us-2" = { target = "198.51.100.22", weight = 1 } } }
  }
  servers = merge([for r, v in local.regions : { for name, s in v.servers : name => merge(s, { region = r }) }]...)
}

resource "tmkit_profile" "region" {
  for_each               = local.regions
  name                   = "app-${each.key}"
  traffic_routing_method = "Weighted"

  dns_config {
    relative_name = "app-${each.key}"
    ttl           = 30
  }

  monitor_config {
    protocol                     = "HTTP"
    port                         = 80
    path                         = "/health"
    interval_in_seconds          = 30
    timeout_in_seconds           = 10
    tolerated_number_of_failures = 3
    expected_status_code_ranges  = ["200-299"]
  }
}

resource "tmkit_external_endpoint" "server" {
  for_each   = local.servers
  name       = each.key
  profile_id = tmkit_profile.region[each.value.region].id
  target     = each.value.target
  weight     = each.value.weight
  # Until the servers answer /health, serve them anyway (remove to let probing decide).
  always_serve_enabled = true
}

resource "tmkit_profile" "app" {
  name                   = "app"
  traffic_routing_method = "Performance"

  dns_config {
    relative_name = "app"
    ttl           = 30
  }

  monitor_config {
    protocol = "HTTP"
    port     = 80
    path     = "/health"
  }

  tags = { team = "web" }
}

resource "tmkit_nested_endpoint" "region" {
  for_each                = local.regions
  name                    = each.key
  profile_id              = tmkit_profile.app.id
  target_resource_id      = tmkit_profile.region[each.key].id
  endpoint_location       = each.value.location
  minimum_child_endpoints = 1
}

data "tmkit_profile_status" "app" {
  name       = tmkit_profile.app.name
  depends_on = [tmkit_nested_endpoint.region]
}

output "fqdn" { value = tmkit_profile.app.fqdn }
output "status" { value = data.tmkit_profile_status.app.profile_monitor_status }
